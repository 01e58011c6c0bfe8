/**
 * Browser-test harness of the business portal (`GET /portal`): headless Chromium (Debian's
 * `chromium`, driven by puppeteer-core) opens the portal on the service under test and
 * records everything the page does, so that a test can require:
 *
 * - every request stays on the service's origin (others are aborted and listed);
 * - every request is a documented operation (`documentedOperation`) or one of the service's
 *   pages and their files (`/portal/…`, src/kernel/servicePages.ts), and every response
 *   validates against the documents (`assertMatchesContract`, which also counts it for
 *   the contract coverage; a page's is checked as a page's);
 * - no console error, uncaught exception or failed request (a CSP violation is a console error);
 * - no serious or critical accessibility violation on a page (axe-core, `checkA11y`).
 *
 * Without Chromium, `launchBrowser` skips the suite with a loud notice; with `CI=true` it
 * fails instead (as test/contract/docsBrowser.test.ts). CHROMIUM_PATH names another binary.
 */
import { codeAt, PASSWORD, type PortalUser } from './portalUsers.js';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect } from 'chai';
import puppeteer, { type Browser, type HTTPResponse, type Page } from 'puppeteer-core';
import { isServicePage } from '../../src/kernel/servicePages.js';
import { assertMatchesContract, documentedOperation } from './contract.js';
import { baseUrl } from './service.js';

/** CHROMIUM_PATH, else the first Chromium on PATH. */
export function findChromium(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    const found = dirs.map((dir) => path.join(dir, name)).find((candidate) => existsSync(candidate));
    if (found) return found;
  }
  return undefined;
}

/**
 * Headless Chromium for a suite (`ctx` is its `before` hook's context): skips the suite
 * when there is none (fails with CI=true). `what` names the test in the notice.
 */
export async function launchBrowser(ctx: Mocha.Context, what: string): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) {
    const how = 'install it (`apt-get install -y chromium`, as .ci/run does) or set CHROMIUM_PATH to a Chromium or Chrome binary';
    if (process.env.CI === 'true') throw new Error(`Chromium not found on PATH, and CI=true makes this test mandatory: ${how}.`);
    const line = '!'.repeat(100);
    console.warn(`\n${line}\n!! SKIPPED: ${what} in headless Chromium.\n!! Chromium is not on PATH: ${how}.\n!! CI=true makes this test mandatory.\n${line}\n`);
    ctx.skip();
  }
  return puppeteer.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--no-default-browser-check'],
  });
}

/** RecordedRequest.operation of a request for one of the service's pages (outside the documents). */
export const SERVICE_PAGE = 'service page';

/** One request the page made, as recorded. */
export interface RecordedRequest {
  method: string;
  url: string;
  /** `<document>#<operationId>`, SERVICE_PAGE for a page of the service or a file it loads, or null when neither (or not on the origin). */
  operation: string | null;
  status?: number;
}

/** An open portal page and what it did so far. */
export interface PortalPage {
  page: Page;
  origin: string;
  requests: RecordedRequest[];
  consoleErrors: string[];
  /** Requests to another origin (aborted). */
  foreignRequests: string[];
  /** Same-origin requests that are neither a documented operation nor one of the service's pages. */
  undocumented(): string[];
  /** Every departure from the documents among the responses so far (awaits pending checks). */
  contractProblems(): Promise<string[]>;
  /** Asserts no foreign or undocumented request, no contract departure and no console error. */
  assertClean(): Promise<void>;
  close(): Promise<void>;
}

/** Checks a response from the service against the documents; returns the departure, if any. */
export async function contractProblem(res: HTTPResponse): Promise<string | null> {
  const url = new URL(res.url());
  const text = await res.text();
  const headers = new Headers(res.headers());
  const body = /json/.test(headers.get('content-type') ?? '') && text ? JSON.parse(text) : text;
  try {
    assertMatchesContract({ method: res.request().method(), path: url.pathname, status: res.status(), headers, body });
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Opens `path` (default `/portal`) of the service under test in a new page of `browser`, recording everything. */
export async function openPortal(browser: Pick<Browser, 'newPage'>, pathname = '/portal'): Promise<PortalPage> {
  const origin = new URL(baseUrl()).origin;
  const page = await browser.newPage();
  const requests: RecordedRequest[] = [];
  const consoleErrors: string[] = [];
  const foreignRequests: string[] = [];
  const checks: Promise<string | null>[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(msg.text());
  });
  page.on('pageerror', (err) => consoleErrors.push(`uncaught: ${String(err)}`));
  page.on('requestfailed', (req) => {
    if (!foreignRequests.includes(req.url())) consoleErrors.push(`request failed: ${req.url()} ${req.failure()?.errorText ?? ''}`);
  });
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    const url = req.url();
    if (url.startsWith('data:')) return void req.continue();
    const parsed = new URL(url);
    if (parsed.origin !== origin) {
      foreignRequests.push(url);
      return void req.abort('blockedbyclient');
    }
    requests.push({ method: req.method(), url: parsed.pathname + parsed.search, operation: isServicePage(parsed.pathname) ? SERVICE_PAGE : documentedOperation(req.method(), parsed.pathname) });
    void req.continue();
  });
  page.on('response', (res) => {
    const url = res.url();
    if (url.startsWith('data:') || new URL(url).origin !== origin) return;
    const parsed = new URL(url);
    const recorded = [...requests].reverse().find((r) => r.url === parsed.pathname + parsed.search && r.method === res.request().method() && r.status === undefined);
    if (recorded) recorded.status = res.status();
    checks.push(contractProblem(res));
  });
  page.setDefaultTimeout(30_000);
  await page.setViewport({ width: 1280, height: 900 });
  const opened = await page.goto(`${origin}${pathname}`, { waitUntil: 'networkidle0' });
  expect(opened?.status(), `GET ${pathname}`).to.equal(200);
  const undocumented = () => requests.filter((r) => r.operation === null).map((r) => `${r.method} ${r.url}`);
  const contractProblems = async () => (await Promise.all(checks)).filter((p): p is string => p !== null);
  return {
    page,
    origin,
    requests,
    consoleErrors,
    foreignRequests,
    undocumented,
    contractProblems,
    async assertClean() {
      expect(foreignRequests, 'requests to other origins').to.deep.equal([]);
      expect(undocumented(), 'requests to no documented operation').to.deep.equal([]);
      expect(await contractProblems(), 'responses that break the contract').to.deep.equal([]);
      expect(consoleErrors, 'console errors').to.deep.equal([]);
    },
    close: () => page.close(),
  };
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** One accessibility violation axe found. */
export interface A11yViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core (WCAG 2 A and AA rules and best practices) on the page as it is now and asserts
 * no serious or critical violation; `label` names the page in the failure. axe is evaluated
 * through the DevTools protocol, which the page's CSP does not govern (no script tag, no
 * CSP bypass). Returns every violation found, of any impact.
 */
export async function checkA11y(page: Page, label: string): Promise<A11yViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }> } }).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious, `serious or critical accessibility violations on ${label}`).to.deep.equal([]);
  await expectWords(page, label);
  return violations;
}

/** What a validator or a JSON Pointer says, as it would read if shown raw: a pattern, a format, a pointer into a request. */
const RAW_MESSAGE = /must match (pattern|format)|must NOT have|must have required property|(^|\s)\/(body|query|path|header)\/\S|(^|\s)\/[a-z][a-z0-9_]*(\/[\w~]+)*: /m;

/**
 * Asserts that the page's text, outside the bodies it shows as they were sent (`pre`, `code`),
 * holds no raw validator message or JSON Pointer: an operator reads problems in words.
 */
export async function expectWords(page: Page, label: string): Promise<void> {
  const text = await page.evaluate(() => {
    const copy = document.body.cloneNode(true) as HTMLElement;
    copy.querySelectorAll('pre, code, script, style').forEach((el) => el.remove());
    return copy.innerText ?? copy.textContent ?? '';
  });
  const raw = RAW_MESSAGE.exec(text);
  expect(raw && text.slice(Math.max(0, raw.index - 80), raw.index + 80), `a raw validator message or pointer shown on ${label}`).to.equal(null);
}

/** Presses Tab until `selector` has the focus (at most `max` presses); throws when it never does. */
export async function tabTo(page: Page, selector: string, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`${selector} never received the focus in ${max} presses of Tab`);
}

/** Replaces the focused input's value by typing `text` (select all, then type). */
export async function retype(page: Page, text: string): Promise<void> {
  await page.keyboard.down('Control');
  await page.keyboard.press('a');
  await page.keyboard.up('Control');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(text);
}

/**
 * Signs `user` in with the keyboard alone: Tab to "Email", type, Tab to "Password", type, Tab
 * to "Authentication code", type the authenticator's next code, Enter. Waits until the
 * portal's navigation shows.
 */
export async function signInWithKeyboard(page: Page, user: PortalUser): Promise<void> {
  await tabTo(page, '#email');
  await retype(page, user.email);
  await tabTo(page, '#password');
  await retype(page, PASSWORD);
  await tabTo(page, '#code');
  await retype(page, codeAt(user.totp));
  await page.keyboard.press('Enter');
  await page.waitForSelector('nav[aria-label="Portal"]');
}

/**
 * Opens the portal page `id` (its navigation link) and waits until its heading shows `title`.
 * On a narrow screen the navigation is folded behind the Menu button: it is opened first.
 */
export async function showPage(page: Page, id: string, title: string): Promise<void> {
  const folded = await page.$eval('.menu-button', (b) => getComputedStyle(b).display !== 'none' && b.getAttribute('aria-expanded') !== 'true');
  if (folded) {
    await page.click('.menu-button');
    await page.waitForSelector(`nav a[href="#${id}"]`, { visible: true });
  }
  await page.click(`nav a[href="#${id}"]`);
  await page.waitForFunction((t) => document.querySelector('main h1')?.textContent === t, {}, title);
}

/** The visible text of the page's main region. */
export const mainText = (page: Page): Promise<string> => page.evaluate(() => (document.querySelector('main') as HTMLElement | null)?.innerText ?? '');

/** A screen the portal is tested on: its width in CSS pixels and its colour scheme. */
export interface Look {
  width: number;
  dark: boolean;
}

/** The looks every page is checked in: a laptop and a phone, each light and dark, and the narrowest phone the portal serves. */
export const LOOKS: Look[] = [
  { width: 1280, dark: false },
  { width: 1280, dark: true },
  { width: 390, dark: false },
  { width: 390, dark: true },
  { width: 360, dark: false },
];

/** The look's name in test titles and file names: `390-dark`. */
export const lookName = (look: Look): string => `${look.width}-${look.dark ? 'dark' : 'light'}`;

/**
 * Shows `page` as `look`: the viewport's width (900 px high, 844 on a phone) and the
 * `prefers-color-scheme` the portal's dark mode follows.
 */
export async function setLook(page: Page, look: Look): Promise<void> {
  await page.setViewport({ width: look.width, height: look.width < 600 ? 844 : 900 });
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: look.dark ? 'dark' : 'light' }]);
}

/** Asserts the page scrolls no wider than the viewport (wide tables scroll inside their box). */
export async function assertNoPageOverflow(page: Page, label: string): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  expect(scrollWidth, `the page's width on ${label} (viewport ${innerWidth} px)`).to.be.at.most(innerWidth);
}

/**
 * Saves a screenshot `name`.png into the folder PORTAL_SCREENSHOT_DIR names (docs/images for
 * the guides: `npm run portal:screenshots`); nothing without it. `fullPage` takes the whole
 * page rather than the viewport; `show` (a selector) is scrolled to the top of the viewport first.
 */
export async function screenshotFor(page: Page, name: string, { fullPage = false, show }: { fullPage?: boolean; show?: string } = {}): Promise<void> {
  const dir = process.env.PORTAL_SCREENSHOT_DIR;
  if (!dir) return;
  if (show) await page.$eval(show, (el) => el.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage });
  if (show) await page.evaluate(() => window.scrollTo(0, 0));
}
