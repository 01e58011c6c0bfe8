/**
 * The business portal's page and files over plain HTTP (`GET /portal`, `/portal/assets/…`), a
 * page of the service outside the API documents: every file of src/portal/assets/ (folders
 * included) is served as it is, with its media type and the strict Content-Security-Policy;
 * any other path is 404 and another method 405; the sandbox's page carries the demo
 * credentials and the production page does not. Then, in Chromium, the page loads without a
 * console error, and the harness (test/support/portal.ts) catches a request to an operation
 * the documents do not have.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'puppeteer-core';
import { PORTAL_ASSETS } from '../../src/paths.js';
import type { RunningService } from '../../src/server.js';
import { get, request } from '../support/client.js';
import { launchBrowser, openPortal, retype, tabTo } from '../support/portal.js';
import { extraServiceHooks, startExtraService } from '../support/service.js';

const REQUIRED_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
];

/** Asserts the portal's CSP: every required directive, nothing looser. */
function expectStrictCsp(headers: Headers, what: string): void {
  const csp = headers.get('content-security-policy') ?? '';
  const directives = csp.split(';').map((d) => d.trim());
  for (const d of REQUIRED_CSP) expect(directives, `${what}: CSP`).to.include(d);
  expect(csp, `${what}: CSP`).to.not.match(/unsafe-|https?:|\*|blob:/);
}

/** Every file the portal serves: [URL, file on disk, media type], folders included. */
function servedFiles(): [string, string, string][] {
  return readdirSync(PORTAL_ASSETS, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(js|css)$/.test(name))
    .map((name) => [`/portal/assets/${name.split(path.sep).join('/')}`, path.join(PORTAL_ASSETS, name), name.endsWith('.css') ? 'text/css' : 'text/javascript']);
}

describe('Business portal page and assets (GET /portal, /portal/assets/…)', () => {
  let production: RunningService;
  extraServiceHooks({ sandbox: false }, (s) => (production = s));

  it('serves the page with a strict CSP, its style sheet and module from this service, and the demo credentials in the sandbox', async () => {
    const res = await get('/portal');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expectStrictCsp(res.headers, 'GET /portal');
    const html = String(res.body);
    expect(html).to.include('<script type="module" src="/portal/assets/app.js"></script>');
    expect(html).to.include('<link rel="stylesheet" href="/portal/assets/style.css">');
    expect(html).to.not.match(/https?:\/\//).and.not.match(/<script>|<style|style="/);
    expect(html).to.include('data-sandbox="true"').and.include('data-demo-email="owner@demo.example"').and.include('data-demo-password="demo-owner-password"');
  });

  it('leaves the demo credentials out of the production page', async () => {
    const res = await get('/portal', { baseUrl: production.url });
    expect(res.status).to.equal(200);
    expect(String(res.body)).to.include('data-sandbox="false"').and.not.include('demo-owner').and.not.include('data-demo');
    // The demo owner's code generator is the sandbox's only.
    expect((await get('/portal/assets/otpauth.js', { baseUrl: production.url })).status).to.equal(404);
    expect((await get('/portal/assets/otpauth.js')).status).to.equal(200);
  });

  it('serves every file of src/portal/assets as it is, with its media type and the CSP, and Preact with htm from node_modules', async () => {
    const files = servedFiles();
    expect(files.map(([url]) => url)).to.include.members([
      '/portal/assets/app.js', '/portal/assets/api.js', '/portal/assets/ui.js', '/portal/assets/lists.js', '/portal/assets/download.js', '/portal/assets/style.css',
      ...['index', 'customers', 'events', 'sandbox'].map((p) => `/portal/assets/pages/${p}.js`),
      ...['overview', 'move-money', 'payouts', 'wallets', 'webhooks'].map((p) => `/portal/assets/pages/${p}/index.js`),
    ]);
    for (const [url, file, type] of files) {
      const res = await get(url);
      expect(res.status, url).to.equal(200);
      expect(res.headers.get('content-type'), url).to.match(new RegExp(`^${type}`));
      expectStrictCsp(res.headers, url);
      expect(res.body, url).to.equal(readFileSync(file, 'utf8'));
      // Nothing the browser would fetch from elsewhere.
      expect(String(res.body), url).to.not.match(/(?:from\s+|import\s*\(|url\()\s*['"]?https?:/);
    }
    const preact = await get('/portal/assets/preact-htm.js');
    expect(preact.status).to.equal(200);
    expect(preact.headers.get('content-type')).to.match(/^text\/javascript/);
    expect(String(preact.body)).to.match(/export\{[^}]*\bhtml\b[^}]*\}/).and.include(' as render');
  });

  it("counts the page's requests in the metrics under its root, where an operation has its operationId", async () => {
    const count = async () => Number(/^http_requests_total\{operation_id="\/portal",status="200"\} (\d+)$/m.exec(String((await get('/metrics')).body))?.[1] ?? 0);
    const before = await count();
    await get('/portal');
    await get('/portal/assets/app.js');
    expect(await count()).to.equal(before + 2);
  });

  it('answers 404 NOT_FOUND for any path it has no file at, and 405 to another method', async () => {
    for (const url of ['/portal/assets/other.js', '/portal/assets/other.css', '/portal/assets/pages/other.js', '/portal/assets/pages/payouts/other.js', '/portal/assets/pages/preact-htm.js',
      '/portal/assets/App.js', '/portal/assets/pages/..%2Fapi.js', '/portal/assets/%E0%A4%A', '/portal/assets/style.scss', '/portal/assets', '/portal/other']) {
      const res = await get(url);
      expect(res.status, url).to.equal(404);
      expect(res.body.code, url).to.equal('NOT_FOUND');
    }
    const posted = await request('POST', '/portal', { body: {} });
    expect(posted.status).to.equal(405);
    expect(posted.headers.get('allow')).to.equal('GET, HEAD');
  });

  it('serves a page module from a folder of pages/', async () => {
    const folder = mkdtempSync(path.join(PORTAL_ASSETS, 'pages', 'folder-'));
    const service = await startExtraService({});
    try {
      writeFileSync(path.join(folder, 'probe.js'), 'export const probe = 1;\n');
      const res = await get(`/portal/assets/pages/${path.basename(folder)}/probe.js`, { baseUrl: service.url });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/javascript/);
      expectStrictCsp(res.headers, 'a page in a folder');
      expect(res.body).to.equal('export const probe = 1;\n');
    } finally {
      rmSync(folder, { recursive: true, force: true });
      await service.close();
    }
  });
});

describe('Business portal in headless Chromium: the harness', function () {
  this.timeout(120_000);
  let browser: Browser;
  before(async function () {
    browser = await launchBrowser(this, 'the business portal (test/contract/portalAssets.test.ts)');
  });
  after(async () => browser?.close());

  it('loads the sign-in form with every module, no console error and only documented requests', async () => {
    const portal = await openPortal(browser);
    try {
      await portal.page.waitForSelector('#email');
      expect(await portal.page.$eval('#email', (el) => (el as HTMLInputElement).value)).to.equal('owner@demo.example');
      expect(portal.requests.map((r) => r.url)).to.include.members(['/portal', '/portal/assets/app.js', '/portal/assets/preact-htm.js', '/portal/assets/pages/index.js']);
      // The pages' money formatting works on the decimal strings: no digit is lost to a JS number.
      const formatted = await portal.page.evaluate(async () => {
        const { formatMoney } = await import('/portal/assets/ui.js' as string);
        return [formatMoney('-1234567.50', 'SAR'), formatMoney('12345678901234567890.05'), formatMoney('0.00', 'SAR'), formatMoney('999.99')];
      });
      expect(formatted).to.deep.equal(['-1,234,567.50 SAR', '12,345,678,901,234,567,890.05', '0.00 SAR', '999.99']);
      await portal.assertClean();
    } finally {
      await portal.close();
    }
  });

  it('shows the problem of a refused sign-in and keeps the form', async () => {
    const portal = await openPortal(browser);
    try {
      await portal.page.waitForSelector('#email');
      await tabTo(portal.page, '#password');
      await retype(portal.page, 'not-the-password');
      await tabTo(portal.page, '#code');
      await retype(portal.page, '123456');
      await portal.page.keyboard.press('Enter');
      const alert = await portal.page.waitForSelector('[role="alert"]');
      const text = await alert!.evaluate((el) => (el as HTMLElement).innerText);
      expect(text).to.match(/sign/i);
      expect(await portal.page.$('nav[aria-label="Portal"]')).to.equal(null);
      // The browser reports the 401 itself ("Failed to load resource"); nothing else may fail.
      expect(portal.consoleErrors.filter((e) => !/status of 401/.test(e))).to.deep.equal([]);
      expect(portal.undocumented()).to.deep.equal([]);
      expect(await portal.contractProblems()).to.deep.equal([]);
    } finally {
      await portal.close();
    }
  });

  it('catches a request to a path the documents do not have', async () => {
    const portal = await openPortal(browser);
    try {
      await portal.page.evaluate(() => fetch('/cl/v1/portal-only-helper').then((r) => r.text()));
      expect(portal.undocumented()).to.deep.equal(['GET /cl/v1/portal-only-helper']);
      let failure = '';
      await portal.assertClean().catch((err: Error) => (failure = err.message));
      expect(failure).to.include('requests to no documented operation');
    } finally {
      await portal.close();
    }
  });
});
