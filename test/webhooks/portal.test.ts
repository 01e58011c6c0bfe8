/**
 * The business portal's Webhooks page as a person uses it, in headless Chromium: sign in
 * with the keyboard alone, register an endpoint pointing at a local receiver, send a test
 * event and see its 200 attempt in the delivery log; make the receiver fail and see the
 * failed attempt, opened, with its bodies, error and next retry; let it recover and recover
 * the failures; resend one event after its review (attempt 2, manual); rotate the secret
 * (the receiver then sees two signatures, each verifiable); edit, disable, enable and delete the endpoint. Every page visited passes axe (no
 * serious or critical violation); the page logs no console error, requests nothing off
 * its origin and calls documented operations only, each response matching the documents
 * (test/support/portal.ts). PORTAL_SCREENSHOT_DIR keeps a screenshot of the page.
 */
import { expect } from 'chai';
import type { Browser, Page } from 'puppeteer-core';
import { post } from '../support/client.js';
import { platformToken, tokenFor, topup, uniq } from '../support/fixtures.js';
import { checkA11y, launchBrowser, mainText, openPortal, screenshotFor, signInWithKeyboard, tabTo, type PortalPage } from '../support/portal.js';
import { enrolledUser } from '../support/portalUsers.js';
import { receiversOfSuite, verifyDelivery, type Received } from '../support/webhooks.js';

/** The delivery log's rows: event code, event id (from the row's Open button), attempt, outcome and status. */
async function logRows(page: Page) {
  return page.evaluate(() => {
    const table = [...document.querySelectorAll('table')].find((t) => t.caption?.textContent?.startsWith('Delivery attempts'));
    return [...(table?.tBodies[0]?.rows ?? [])].filter((row) => !row.classList.contains('detail')).map((row) => {
      const cells = [...row.cells].map((c) => (c as HTMLElement).innerText.trim());
      const label = row.querySelector('button')?.getAttribute('aria-label') ?? '';
      const [outcome, reason = ''] = cells[3].split(' · ');
      return { event_code: cells[1], event_id: label.split(' ').at(-1) ?? '', attempt: cells[2], outcome, status: /\b(\d{3})\b/.exec(reason)?.[1] ?? '—', open: label };
    });
  });
}

/** Opens row `row`'s attempt; resolves once its detail shows. */
async function openAttempt(page: Page, row: { open: string; attempt: string }): Promise<void> {
  await page.click(`button[aria-label="${row.open}"]`);
  await page.waitForSelector('.attempt-detail');
}

type Row = Awaited<ReturnType<typeof logRows>>[number];

/** Presses "Refresh log" until a row satisfies `match` (throws after `ms`). */
async function waitForRow(page: Page, match: (r: Row) => boolean, what: string, ms = 20_000): Promise<Row> {
  const until = Date.now() + ms;
  for (;;) {
    const found = (await logRows(page)).find(match);
    if (found) return found;
    if (Date.now() > until) throw new Error(`no delivery log row ${what}; rows: ${JSON.stringify(await logRows(page))}`);
    await page.click('button::-p-text(Refresh log)');
    await new Promise((r) => setTimeout(r, 400));
  }
}

/** Clicks the button with exactly `text` and waits for the status message that contains `message`. */
async function press(page: Page, text: string, message?: string): Promise<void> {
  await page.click(`button::-p-text(${text})`);
  if (message) await page.waitForFunction((m) => [...document.querySelectorAll('[role="status"], [role="alert"]')].some((el) => el.textContent?.includes(m)), {}, message);
}

/** The secret the page shows once. */
const shownSecret = (page: Page) => page.$eval('[data-secret]', (el) => el.textContent ?? '');

describe('Business portal: Webhooks page in headless Chromium', function () {
  this.timeout(240_000);
  let browser: Browser;
  let portal: PortalPage;
  const receiver = receiversOfSuite();

  before(async function () {
    browser = await launchBrowser(this, 'the business portal Webhooks test (test/webhooks/portal.test.ts)');
  });
  after(async () => {
    await portal?.close();
    await browser?.close();
  });

  it('manages an endpoint end to end, with only documented requests, no console error and no serious accessibility violation', async () => {
    // A business of the test's own, and a receiver whose answer the test switches.
    const created = await post('/cl/v1/businesses', { name: `Portal ${uniq()}` }, { token: await platformToken() });
    expect(created.status).to.equal(201);
    const { client_id, client_secret } = created.body.credentials;
    const token = await tokenFor(client_id, client_secret);
    const owner = await enrolledUser({ token }, 'owner', token);
    let answer = 200;
    // The failure's body is long and has no space to break at: the log must wrap it anyway.
    const failure = JSON.stringify({ error: 'database unavailable', trace: 'x'.repeat(700) });
    const hooks = await receiver(() => ({ status: answer, body: answer === 200 ? '{"ok":true}' : failure }));
    const received = (id: string) => hooks.received.filter((r: Received) => r.headers['webhook-id'] === id);

    portal = await openPortal(browser);
    const { page } = portal;
    await page.waitForSelector('#email');
    await checkA11y(page, 'the sign-in form');

    // Sign in and reach the Webhooks page with the keyboard alone.
    await signInWithKeyboard(page, owner);
    await page.waitForFunction(() => document.body.innerText.includes('Account balances'));
    expect(await mainText(page)).to.include(created.body.name).and.include(created.body.operational_account.account_number);
    await checkA11y(page, 'Overview');
    await tabTo(page, 'nav a[href="#webhooks"]');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Webhooks');
    await page.waitForSelector('::-p-text(No endpoint is registered yet.)');
    await checkA11y(page, 'Webhooks (no endpoint)');

    // Register an endpoint at the receiver, subscribed to top-ups.
    await page.type('#endpoint-url', hooks.url);
    await page.type('#endpoint-description', 'Order service');
    await page.click('#new-event-topup\\.complete');
    await press(page, 'Register endpoint', 'Endpoint registered');
    const firstSecret = await shownSecret(page);
    expect(firstSecret).to.match(/^whsec_/);
    await page.waitForSelector(`button[aria-label="Manage ${hooks.url}"]`);
    await page.click(`button[aria-label="Manage ${hooks.url}"]`);
    await page.waitForSelector('::-p-text(Delivery log)');
    expect(await page.$('[data-secret]'), 'the secret is shown once').to.equal(null);

    // A test event: its attempt shows with 200.
    await press(page, 'Send test event', 'is on its way');
    const ok = await waitForRow(page, (r) => r.event_code === 'webhook.test' && r.outcome === 'Succeeded' && r.status === '200', 'with a 200 test event');
    expect(verifyDelivery(firstSecret, received(ok.event_id)[0]!).code).to.equal('webhook.test');
    await checkA11y(page, 'Webhooks (an endpoint and its delivery log)');

    // The receiver fails: a failed attempt with its status, response and next retry.
    answer = 500;
    await press(page, 'Send test event', 'is on its way');
    const failed = await waitForRow(page, (r) => r.event_id !== ok.event_id && r.outcome === 'Failed' && r.status === '500', 'with a failed attempt');
    // The endpoint now reads as failing, with its success rate over 24 hours and since when.
    await page.waitForSelector('td [data-health="failing"]');
    const health = await page.$eval('dl.facts', (el) => (el as HTMLElement).innerText);
    // One success and at least one failure (the delivery's retries may have run meanwhile).
    const [, percent, total] = /Success \(24 h\)\s+(\d+)% of (\d+) attempts/.exec(health) ?? [];
    expect(Number(total), health).to.be.at.least(2);
    expect(Number(percent), health).to.equal(Math.round(100 / Number(total)));
    expect(health).to.match(/Failing since\s+\d/);
    expect(health, 'the failure says why').to.match(/Last failure \(24 h\)\s+HTTP 500 Internal Server Error at \d/);
    const chart = await page.$eval('figure.attempts-chart svg', (el) => el.getAttribute('aria-label'));
    expect(chart).to.match(/^Attempts per hour over the last 24 hours: 1 succeeded, \d+ failed/);
    // The failed attempt opened: the body sent, the body answered, the error and the next retry.
    await openAttempt(page, failed);
    const n = parseInt(failed.attempt, 10);
    expect(JSON.parse(await page.$eval(`pre[aria-label="Request body of attempt ${n}"]`, (el) => el.textContent ?? ''))).to.include({ code: 'webhook.test' });
    expect(await page.$eval(`pre[aria-label="Response body of attempt ${n}"]`, (el) => el.textContent)).to.include('database unavailable');
    const detail = await page.$eval('.attempt-detail', (el) => (el as HTMLElement).innerText);
    expect(detail).to.match(/Error\s+HTTP 500/).and.match(/Next retry\s+\d/);
    await checkA11y(page, 'Webhooks (a failing endpoint with an event open)');
    // At 1280 px the log, long errors included, fits its box: its cells wrap, nothing is cut.
    const fit = await page.$eval('table.log', (t) => ({ table: t.scrollWidth, box: (t.parentElement as HTMLElement).clientWidth, page: document.documentElement.scrollWidth }));
    expect(fit.table, 'the delivery log is no wider than its box').to.be.at.most(fit.box);
    expect(fit.page, 'the page is no wider than the screen').to.be.at.most(1280);

    // Back to 200: recover the failures since an hour ago; the failed event arrives with 200.
    answer = 200;
    await press(page, 'Recover failures', 'queued again');
    await waitForRow(page, (r) => r.event_id === failed.event_id && r.outcome === 'Succeeded', 'with the recovered event succeeding');
    expect(received(failed.event_id).length).to.be.greaterThan(1);
    await screenshotFor(page, 'portal-webhooks', { fullPage: true });

    // A real event (a sandbox top-up through the API), then "Resend" from the log: the same webhook-id again.
    await topup(await tokenFor(client_id, client_secret), '25.00');
    const topupRow = await waitForRow(page, (r) => r.event_code === 'topup.complete' && r.outcome === 'Succeeded', 'with the top-up event');
    await openAttempt(page, topupRow);
    await page.click('button::-p-text(Resend this event…)');
    await page.click('button::-p-text(Confirm resend)');
    await page.waitForSelector('::-p-text(is queued again)');
    await waitForRow(page, (r) => r.event_id === topupRow.event_id && r.attempt === '2, manual' && received(topupRow.event_id).length === 2, 'with the resent event');

    // Rotate: the new secret shows once; the next delivery carries both signatures.
    await press(page, 'Rotate secret', 'Secret rotated');
    const secondSecret = await shownSecret(page);
    expect(secondSecret).to.match(/^whsec_/).and.not.equal(firstSecret);
    await press(page, 'Send test event', 'is on its way');
    const signed = await waitForRow(page, (r) => r.event_code === 'webhook.test' && ![ok.event_id, failed.event_id].includes(r.event_id) && r.outcome === 'Succeeded', 'with the test event after rotation');
    const delivery = received(signed.event_id)[0]!;
    expect(String(delivery.headers['webhook-signature']).split(' ')).to.have.length(2);
    expect(verifyDelivery(secondSecret, delivery).code).to.equal('webhook.test');
    expect(verifyDelivery(firstSecret, delivery).code).to.equal('webhook.test');

    // Edit, disable, enable, delete.
    await page.click('#edit-description', { count: 3 });
    await page.type('#edit-description', 'Order service, production');
    await page.click('#edit-event-payout\\.completed');
    await press(page, 'Save changes', 'Saved.');
    await page.waitForFunction(() => document.querySelector('table')?.innerText.includes('topup.complete, payout.completed'));
    expect(await mainText(page)).to.include('Order service, production');
    await press(page, 'Disable', 'The endpoint is disabled.');
    await page.waitForSelector('[data-health="disabled"]::-p-text(Disabled: manual)');
    await press(page, 'Enable', 'The endpoint is enabled.');
    await press(page, 'Delete');
    await press(page, 'Confirm delete');
    await page.waitForSelector('::-p-text(No endpoint is registered yet.)');
    await checkA11y(page, 'Webhooks (after delete)');

    // Sign out: back to the form.
    await press(page, 'Sign out', 'You are signed out.');
    await portal.assertClean();
    const operations = new Set(portal.requests.map((r) => r.operation));
    for (const op of ['createPortalSession', 'getBusiness', 'getBusinessAccountBalance', 'listWebhookEndpointHealth', 'createWebhookEndpoint', 'sendWebhookTestEvent',
      'listWebhookDeliveryAttempts', 'recoverWebhookDeliveries', 'redeliverEvent', 'rotateWebhookEndpointSecret', 'updateWebhookEndpoint', 'deleteWebhookEndpoint']) {
      expect([...operations].some((o) => o?.endsWith(`#${op}`)), `the portal called ${op}`).to.equal(true);
    }
  });
});
