/**
 * The API reference page as a person sees it: headless Chromium (Debian's
 * `chromium`, driven by puppeteer-core) opens /docs for each document at the newest
 * version (`?version=`, its released documents, which are the sources: main is released). Every
 * operation of the bundled documents must be listed, no console error may
 * appear, every request must stay on the service's own origin, and every
 * response the page receives from the service must match the documents.
 * Set DOCS_SCREENSHOT_DIR to keep a screenshot of each page.
 *
 * Without Chromium the test is skipped with a loud notice saying how to enable it,
 * so that the README's `npm test` passes on a fresh machine; with `CI=true` (as CI
 * runs `.ci/run`, which installs Chromium) it is mandatory and fails instead.
 */
import path from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'puppeteer-core';
import { loadBundledDocument } from '../../src/http/apiBuild.js';
import { API_VERSIONING } from '../../src/http/versions.js';
import { operationsOf } from '../support/operations.js';
import { contractProblem, launchBrowser } from '../support/portal.js';
import { baseUrl } from '../support/service.js';

const DOCUMENTS = ['closed-loop', 'core'] as const;

describe('API reference page in headless Chromium', function () {
  this.timeout(240_000);
  let browser: Browser;

  before(async function () {
    browser = await launchBrowser(this, 'the API reference page test (test/contract/docsBrowser.test.ts)');
  });
  after(async () => browser?.close());

  for (const name of DOCUMENTS) {
    it(`lists every ${name} operation, with no console error and no request leaving the machine`, async () => {
      const origin = new URL(baseUrl()).origin;
      const page = await browser.newPage();
      const consoleErrors: string[] = [];
      const foreignRequests: string[] = [];
      const responseChecks: Promise<string | null>[] = [];
      page.on('console', (msg) => {
        if (msg.type() === 'error') consoleErrors.push(msg.text());
      });
      page.on('pageerror', (err) => consoleErrors.push(`uncaught: ${String(err)}`));
      page.on('requestfailed', (req) => consoleErrors.push(`request failed: ${req.url()} ${req.failure()?.errorText ?? ''}`));
      await page.setRequestInterception(true);
      page.on('request', (req) => {
        const url = req.url();
        if (url.startsWith('data:') || url.startsWith('blob:')) return void req.continue();
        if (new URL(url).origin === origin) return void req.continue();
        foreignRequests.push(url);
        void req.abort('blockedbyclient');
      });
      page.on('response', (res) => {
        if (new URL(res.url()).origin === origin && !res.url().startsWith('data:')) responseChecks.push(contractProblem(res));
      });
      try {
        await page.setViewport({ width: 1400, height: 1000 });
        // Rendering a large document takes a while on two busy cores.
        page.setDefaultNavigationTimeout(90_000);
        // The newest version's page: every operation of the sources.
        const opened = await page.goto(`${origin}/docs?api=${name}&version=${API_VERSIONING.latest}`, { waitUntil: 'networkidle0' });
        expect(opened?.status()).to.equal(200);

        const operations = operationsOf(name, '');
        expect(operations.length).to.be.greaterThan(0);
        const summaries = operations.map((op) => op.summary);
        // The sidebar lists each operation by summary once the document has loaded.
        const sidebarLines = async () =>
          page.evaluate(() => (document.querySelector('aside')?.innerText ?? '').split('\n').map((line) => line.trim()));
        await page
          .waitForFunction(
            (wanted: string[]) => {
              const lines = new Set((document.querySelector('aside')?.innerText ?? '').split('\n').map((line) => line.trim()));
              return wanted.every((summary) => lines.has(summary));
            },
            { timeout: 30_000 },
            summaries,
          )
          .catch(() => undefined);
        const listed = new Set(await sidebarLines());
        expect(summaries.filter((summary) => !listed.has(summary)), 'operations missing from the sidebar').to.deep.equal([]);
        const text = await page.evaluate(() => document.body.innerText);
        const title = (loadBundledDocument(name) as { info: { title: string } }).info.title;
        expect(text, 'document title').to.include(title);
        expect(operations.filter((op) => !text.includes(op.operationId)).map((op) => op.operationId), 'operationIds missing from the page').to.deep.equal([]);
        // Both documents are linked where a person sees them, and requests go to this origin.
        const header = await page.evaluate(() => (document.querySelector('header.api-documents') as HTMLElement | null)?.innerText ?? '');
        expect(header).to.include('Closed-loop API').and.include('Core API').and.include('JSON').and.include('YAML');
        const server = `${origin}${name === 'closed-loop' ? '/cl/v1' : ''}`;
        expect(text, "the page's own origin as the server").to.include(server);
        expect(text, 'the documents\' default server').to.not.include('localhost:3000');

        if (process.env.DOCS_SCREENSHOT_DIR) {
          await page.screenshot({ path: path.join(process.env.DOCS_SCREENSHOT_DIR, `docs-${name}.png`) });
        }
        expect(foreignRequests, 'requests to other origins').to.deep.equal([]);
        expect(consoleErrors, 'console errors').to.deep.equal([]);
        const problems = (await Promise.all(responseChecks)).filter(Boolean);
        expect(problems, 'responses that break the contract').to.deep.equal([]);
        expect(responseChecks.length, 'responses checked (page, 2 scripts, document)').to.be.at.least(4);
      } finally {
        await page.close();
      }
    });
  }
});
