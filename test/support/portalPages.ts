/**
 * What the browser tests of the portal's Wallets, Events, Payouts and Sandbox pages need
 * besides the harness (./portal.ts): a business whose client credentials a person can type
 * into the sign-in form, the files the pages save (downloads into a folder of the test's
 * own), a file to choose in a file input, and the hooks of a suite signed in to the portal.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'puppeteer-core';
import { eventually } from './assertions.js';
import { post } from './client.js';
import { platformToken, tokenFor, uniq, type TestBusiness } from './fixtures.js';
import { launchBrowser, openPortal, signInWithKeyboard, type PortalPage } from './portal.js';
import { enrolledUser, type PortalUser } from './portalUsers.js';

/** A new business as ./fixtures.ts newBusiness makes it, with its client's credentials and an owner who signs in to the portal. */
export interface PortalBusiness {
  b: TestBusiness;
  name: string;
  clientId: string;
  clientSecret: string;
  owner: PortalUser;
}

/** Creates a business (platform client), keeps its client credentials and enrols an owner for the sign-in form. */
export async function portalBusiness(): Promise<PortalBusiness> {
  const name = `Portal ${uniq()}`;
  const res = await post('/cl/v1/businesses', { name }, { token: await platformToken() });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  const { client_id: clientId, client_secret: clientSecret } = res.body.credentials;
  const token = await tokenFor(clientId, clientSecret);
  return {
    b: { id: res.body.id, token, operationalAccountNumber: res.body.operational_account.account_number },
    name,
    clientId,
    clientSecret,
    owner: await enrolledUser({ token }, 'owner', token),
  };
}

/** The files a browser saves, in a fresh folder. */
export interface Downloads {
  dir: string;
  /** Waits (up to `ms`) for the file `name` to be saved completely; its text. */
  saved(name: string, ms?: number): Promise<string>;
  /** Removes the folder. */
  remove(): void;
}

/**
 * Lets `browser` save downloads into a fresh folder (DevTools protocol
 * `Browser.setDownloadBehavior`: headless Chromium refuses them otherwise).
 */
export async function allowDownloads(browser: Browser): Promise<Downloads> {
  const dir = mkdtempSync(path.join(tmpdir(), 'portal-downloads-'));
  const session = await browser.target().createCDPSession();
  await session.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: dir });
  return {
    dir,
    async saved(name, ms = 15_000) {
      const file = path.join(dir, name);
      const deadline = Date.now() + ms;
      // Chromium writes `<name>.crdownload` and renames it to `<name>` once complete.
      while (!existsSync(file)) {
        if (Date.now() > deadline) throw new Error(`${name} was not saved within ${ms} ms (folder ${dir})`);
        await new Promise((r) => setTimeout(r, 100));
      }
      return readFileSync(file, 'utf8');
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Writes `text` to a file `name` in a fresh folder and chooses it in the file input `selector`. */
export async function chooseFile(page: Page, selector: string, name: string, text: string): Promise<void> {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'portal-upload-')), name);
  writeFileSync(file, text);
  const input = await page.$(selector);
  if (!input) throw new Error(`no file input ${selector}`);
  await (input as unknown as { uploadFile(...paths: string[]): Promise<void> }).uploadFile(file);
}

/** The text of each row (cells joined by ` | `) of the table whose caption is `caption`. */
export function tableRows(page: Page, caption: string): Promise<string[]> {
  return page.evaluate((c) => {
    const table = [...document.querySelectorAll('table')].find((t) => t.caption?.textContent?.trim() === c);
    if (!table) return [];
    return [...table.tBodies[0].rows].map((row) => [...row.cells].map((cell) => cell.innerText.trim()).join(' | '));
  }, caption);
}

/** Waits until the table captioned `caption` has a row containing `text`. */
export async function waitForRow(page: Page, caption: string, text: string): Promise<void> {
  await page.waitForFunction(
    (c, t) => [...document.querySelectorAll('table')].some((table) => table.caption?.textContent?.trim() === c && (table as HTMLElement).innerText.includes(t)),
    {},
    caption,
    text,
  );
}

/**
 * Clicks the button whose accessible text is exactly `text` (inside `scope`, a CSS selector, when
 * given), once it is enabled: a list's form disables its button while the list is read, as a user
 * waits for it. The click is the page's evaluation (a user gesture, which the clipboard needs).
 * Throws when no such button is enabled within 10 s.
 */
export async function clickButton(page: Page, text: string, scope = 'main'): Promise<void> {
  const click = (s: string, t: string) => {
    const button = [...document.querySelectorAll(`${s} button`)].find((b) => (b.getAttribute('aria-label') ?? b.textContent ?? '').trim() === t) as HTMLButtonElement | undefined;
    if (!button || button.disabled) return false;
    button.click();
    return true;
  };
  // Polled by evaluations, not waitForFunction: after a waitForFunction, the Copy button's
  // clipboard write never completed in headless Chromium (measured).
  await eventually(async () => {
    if (!(await page.evaluate(click, scope, text))) throw new Error(`no enabled button "${text}" in ${scope}`);
  }, 10_000);
}

/** A suite's portal: its business, the signed-in page and the folder of its downloads (set in `before`). */
export interface PortalSuite {
  biz: PortalBusiness;
  portal: PortalPage;
  downloads: Downloads;
}

/**
 * Registers the hooks of a suite on one signed-in portal: in `before`, headless Chromium
 * (the suite is skipped without it, see launchBrowser; `what` names it), a portalBusiness
 * handed to `prepare` (the suite's own data), then the portal opened and signed in with the
 * keyboard; in `after`, the browser closed and the downloads removed.
 */
export function portalSuiteHooks(what: string, prepare: (biz: PortalBusiness) => Promise<void>): PortalSuite {
  const suite = {} as PortalSuite;
  let browser: Browser | undefined;
  before(async function () {
    browser = await launchBrowser(this, what);
    suite.downloads = await allowDownloads(browser);
    suite.biz = await portalBusiness();
    await prepare(suite.biz);
    suite.portal = await openPortal(browser);
    await signInWithKeyboard(suite.portal.page, suite.biz.owner);
  });
  after(async () => {
    await browser?.close();
    suite.downloads?.remove();
  });
  return suite;
}
