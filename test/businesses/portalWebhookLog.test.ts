/**
 * Webhook debugging in the portal, in headless Chromium, at 1280 px light and 390 px dark:
 * the overview's alert (one request of the endpoints' health) and the endpoint list say why a
 * failing endpoint fails and since when;
 * the delivery log filters by event type and by payout id, opens an attempt with its request
 * headers and body and its response's status, headers and body, and resends its event after a
 * review (the new attempt marked manual, numbered after the event's attempts). Every page
 * passes axe, shows no raw validator text and is no wider than the screen; every request is a
 * documented operation answered as documented. PORTAL_SCREENSHOT_DIR keeps a picture of an
 * opened attempt at each width.
 */
import { expect } from 'chai';
import type { Page } from 'puppeteer-core';
import { get, post } from '../support/client.js';
import { activeCustomer } from '../support/customers.js';
import { eventually } from '../support/assertions.js';
import { createPayout, topupPayoutAccount } from '../support/payouts.js';
import { assertNoPageOverflow, checkA11y, lookName, mainText, screenshotFor, setLook, showPage } from '../support/portal.js';
import { portalSuiteHooks, tableRows } from '../support/portalPages.js';
import { receiversOfSuite, startReceiver, testSecret, type Answer } from '../support/webhooks.js';

const LOG = 'Delivery attempts, newest first';

/** Registers `url` for `events`; returns its id. */
async function register(token: string, url: string, events: string[]): Promise<string> {
  const made = await post('/cl/v1/webhooks/endpoints', { url, secret: testSecret(), events }, { token });
  expect(made.status, JSON.stringify(made.body)).to.equal(200);
  const list = await get('/cl/v1/webhooks/endpoints', { token });
  return list.body.data.find((e: { url: string }) => e.url === url).id;
}

/** Sets the log's event type and payout id filters (empty when not given), then shows the attempts. */
async function filterLog(page: Page, filters: { event_code?: string; payout_id?: string }): Promise<void> {
  await page.select('#log-event-code', filters.event_code ?? '');
  await page.click('#log-payout-id', { count: 3 });
  await page.keyboard.press('Backspace');
  if (filters.payout_id) await page.type('#log-payout-id', filters.payout_id);
  await page.click('button::-p-text(Show attempts)');
}

describe('Portal: webhook debugging (delivery log, failure reasons, manual resends)', function () {
  this.timeout(240_000);
  const receiver = receiversOfSuite();
  let logUrl: string;
  let deadUrl: string;
  let payouts: string[];
  let endpointId: string;
  const suite = portalSuiteHooks('the portal webhook log', async (biz) => {
    const customer = await activeCustomer(biz.b);
    await topupPayoutAccount(biz.b, '100.00');
    // Each event's first attempt fails (503, with a header and a body), every later one succeeds.
    const tries = new Map<string, number>();
    const hooks = await receiver((r): Answer => {
      const id = String(r.headers['webhook-id']);
      tries.set(id, (tries.get(id) ?? 0) + 1);
      return tries.get(id) === 1 ? { status: 503, body: 'busy', headers: { 'x-request-id': 'first-try' } } : { status: 200, body: '{"ok":true}' };
    });
    logUrl = hooks.url;
    // An endpoint nothing listens on: it fails, connection refused.
    const dead = await startReceiver();
    deadUrl = dead.url.replace(/\/[^/]*$/, '/dead');
    await dead.close();
    endpointId = await register(biz.b.token, logUrl, ['payout.pending', 'payout.processing']);
    await register(biz.b.token, deadUrl, ['payout.pending']);
    payouts = [];
    for (const amount of ['3.10', '4.20']) payouts.push((await createPayout(biz.b, { payout_amount: amount, customer_id: customer.id })).payout_id);
    // Both payouts' pending events delivered at the second attempt.
    await eventually(async () => {
      const res = await get(`/cl/v1/webhooks/endpoints/${endpointId}/attempts?event_code=payout.pending&outcome=SUCCEEDED`, { token: biz.b.token });
      expect(res.body.data).to.have.length(2);
    }, 60_000);
  });
  afterEach(async () => suite.portal && (await suite.portal.assertClean()));

  for (const look of [{ width: 1280, dark: false }, { width: 390, dark: true }]) {
    it(`shows why an endpoint fails, filters the log, opens an attempt and resends it, at ${look.width} px ${look.dark ? 'dark' : 'light'}`, async () => {
      const { page } = suite.portal;
      const { b } = suite.biz;
      await setLook(page, look);

      // The overview's alert: the dead endpoint, why it fails and since when.
      // From another page, so that the overview loads afresh.
      await showPage(page, 'events', 'Events');
      const sent = suite.portal.requests.length;
      await showPage(page, 'overview', 'Overview');
      await page.waitForFunction((url) => [...document.querySelectorAll('[role="alert"] li')].some((li) => li.textContent?.includes(url)), {}, deadUrl);
      const healthReads = suite.portal.requests.slice(sent).filter((r) => r.operation?.endsWith('#listWebhookEndpointHealth'));
      expect(healthReads, 'the alert reads the endpoints in one request').to.have.length(1);
      const alert = await page.$$eval('[role="alert"] li', (lis, url) => lis.map((li) => (li as HTMLElement).innerText).find((t) => t.includes(url as string)), deadUrl);
      expect(alert).to.match(/failing since \d.*: the endpoint refused the connection \(ECONNREFUSED/);
      await assertNoPageOverflow(page, `the overview at ${look.width} px`);
      await checkA11y(page, `the overview's endpoint alert at ${look.width} px`);

      // The endpoint list: the same reason and since when.
      await showPage(page, 'webhooks', 'Webhooks');
      await page.waitForSelector(`button[aria-label="Manage ${logUrl}"]`);
      const deadRow = (await tableRows(page, 'Webhook endpoints')).find((r) => r.includes(deadUrl))!;
      expect(deadRow).to.include('Failing').and.include('the endpoint refused the connection');
      expect(deadRow.split(' | ')[4], 'failing since').to.match(/\d/);

      // The log of the other endpoint, by event type: both payouts' processing events, nothing else.
      await page.click(`button[aria-label="Manage ${logUrl}"]`);
      await page.waitForSelector(`::-p-text(${LOG})`);
      await filterLog(page, { event_code: 'payout.processing' });
      await page.waitForFunction((c) => {
        const table = [...document.querySelectorAll('table')].find((t) => t.caption?.textContent === c);
        const rows = [...(table?.tBodies[0]?.rows ?? [])];
        return rows.length > 0 && rows.every((r) => r.innerText.includes('payout.processing'));
      }, {}, LOG);

      // By payout id: exactly that payout's attempts, as the service lists them.
      await filterLog(page, { payout_id: payouts[0] });
      const expected = (await get(`/cl/v1/webhooks/endpoints/${endpointId}/attempts?payout_id=${payouts[0]}`, { token: b.token })).body.data;
      await page.waitForFunction((c, n) => {
        const table = [...document.querySelectorAll('table')].find((t) => t.caption?.textContent === c);
        const rows = [...(table?.tBodies[0]?.rows ?? [])];
        // The event type filter's rows have no payout.pending: one shows that the payout's have come.
        return rows.length >= n && rows.some((r) => r.innerText.includes('payout.pending'));
      }, {}, LOG, expected.length);
      const failedAttempt = expected.find((a: any) => a.event_code === 'payout.pending' && a.outcome === 'FAILED' && a.trigger === 'AUTOMATIC');
      const rows = await tableRows(page, LOG);
      expect(rows.length).to.be.at.least(expected.length);
      expect(rows.some((r) => r.includes('Failed · HTTP 503 Service Unavailable')), rows.join('\n')).to.equal(true);

      // Open the failed attempt: its request as sent and the response with its headers.
      const toggle = `button[aria-label="Open attempt ${failedAttempt.number} of payout.pending ${failedAttempt.event_id}"]`;
      await page.click(toggle);
      await page.waitForSelector(`[aria-label="Request headers of attempt ${failedAttempt.number}"]`);
      const requestHeaders = await page.$eval(`[aria-label="Request headers of attempt ${failedAttempt.number}"]`, (el) => (el as HTMLElement).innerText);
      for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type', 'user-agent']) expect(requestHeaders).to.include(name);
      expect(requestHeaders).to.include(failedAttempt.event_id).and.include('Bearer (not kept)');
      const body = await page.$eval(`pre[aria-label="Request body of attempt ${failedAttempt.number}"]`, (el) => el.textContent ?? '');
      expect(JSON.parse(body).data.payout_id).to.equal(payouts[0]);
      expect(await page.$eval(`[aria-label="Response headers of attempt ${failedAttempt.number}"]`, (el) => (el as HTMLElement).innerText)).to.include('x-request-id').and.include('first-try');
      expect(await page.$eval(`pre[aria-label="Response body of attempt ${failedAttempt.number}"]`, (el) => el.textContent)).to.equal('busy');
      expect(await mainText(page)).to.match(/Response status\s+503/);
      await assertNoPageOverflow(page, `an opened attempt at ${look.width} px`);
      await checkA11y(page, `an opened attempt at ${look.width} px`);
      await screenshotFor(page, `portal-webhook-attempt-${lookName(look)}`, { show: '#log-heading' });

      // Resend after a review: a manual attempt, numbered after the event's attempts so far.
      const before = (await get(`/cl/v1/webhooks/endpoints/${endpointId}/attempts?event_id=${failedAttempt.event_id}`, { token: b.token })).body.data;
      const next = Math.max(...before.map((a: any) => a.number)) + 1;
      await page.click('button::-p-text(Resend this event…)');
      const review = await page.$eval('[role="group"][aria-label="Review the resend"]', (el) => (el as HTMLElement).innerText);
      expect(review).to.include('Resend payout.pending').and.include(logUrl).and.include(failedAttempt.event_id);
      await checkA11y(page, `the resend's review at ${look.width} px`);
      await page.click('button::-p-text(Confirm resend)');
      await page.waitForSelector('::-p-text(is queued again)');
      const until = Date.now() + 30_000;
      for (;;) {
        const shown = await tableRows(page, LOG);
        if (shown.some((r) => r.includes(`${next}, manual`) && r.includes('payout.pending') && r.includes('Succeeded'))) break;
        if (Date.now() > until) throw new Error(`no manual attempt ${next}; rows:\n${shown.join('\n')}`);
        await page.click('button::-p-text(Refresh log)');
        await new Promise((r) => setTimeout(r, 500));
      }
      await assertNoPageOverflow(page, `the log after a resend at ${look.width} px`);
      await checkA11y(page, `the log after a resend at ${look.width} px`);

      // A payout id that is not one: said in words, nothing sent.
      await filterLog(page, { payout_id: 'CB-7781' });
      await page.waitForSelector('::-p-text(The payout id is 36 characters)');
      await checkA11y(page, `the log's filter check at ${look.width} px`);
      await filterLog(page, {});
    });
  }
});
