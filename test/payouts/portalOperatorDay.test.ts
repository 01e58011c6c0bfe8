/**
 * An operator's day in the business portal, on a phone (390 px) in dark mode, in headless
 * Chromium: the Overview warns of a failing webhook endpoint; on Payouts the operator finds
 * a bulk payout made earlier in the list, opens it with its counts and report, and opens one
 * of its payouts' timeline; on Webhooks the endpoint reads "Failing" in red with its success
 * rate; on Move money a wallet is funded and a payout sent, each confirmed first and sent
 * under an Idempotency-Key of its own, the result linked to where it is listed. At each step
 * the page never scrolls sideways and axe finds no serious violation; every request is a
 * documented operation answered as documented (test/support/portal.ts).
 */
import { expect } from 'chai';
import { get, post } from '../support/client.js';
import { activeCustomer } from '../support/customers.js';
import { newWallet, topup } from '../support/fixtures.js';
import { assertNoPageOverflow, checkA11y, mainText, screenshotFor, setLook, showPage } from '../support/portal.js';
import { clickButton, portalSuiteHooks, tableRows, waitForRow } from '../support/portalPages.js';
import { sendBulkPayout, topupPayoutAccount } from '../support/payouts.js';
import { receiversOfSuite, testSecret } from '../support/webhooks.js';

/** Asserts the page as the operator sees it now: no sideways scroll, no serious axe finding. */
async function looksRight(page: Parameters<typeof checkA11y>[0], label: string): Promise<void> {
  await page.waitForNetworkIdle({ idleTime: 300 });
  await assertNoPageOverflow(page, label);
  await checkA11y(page, `${label} at 390 px, dark`);
}

describe("Portal: an operator's day on a phone in dark mode", function () {
  this.timeout(300_000);
  const receiver = receiversOfSuite();
  let customer: any;
  let wallet: any;
  let bulkId: string;
  let endpointUrl: string;
  const suite = portalSuiteHooks("the portal operator's day", async (biz) => {
    customer = await activeCustomer(biz.b);
    wallet = await newWallet(biz.b.token, { name: 'Payroll' });
    await topupPayoutAccount(biz.b, '1000.00');
    // `.98` keeps the payouts PENDING: the batch's counts stay as the test reads them.
    const bulk = await sendBulkPayout(biz.b, [
      { payout_amount: '10.98', customer_id: customer.id, external_reference: 'day-1' },
      { payout_amount: '20.98', customer_id: customer.id, external_reference: 'day-2' },
    ]);
    expect(bulk.status).to.equal(200);
    bulkId = bulk.body.bulk_payout_id;
    // An endpoint whose every delivery fails, then an event for it.
    const dead = await receiver(() => ({ status: 503, body: '{"error":"maintenance"}' }));
    endpointUrl = dead.url;
    const made = await post('/cl/v1/webhooks/endpoints', { url: dead.url, secret: testSecret(), events: ['topup.complete'] }, { token: biz.b.token });
    expect(made.status, JSON.stringify(made.body)).to.equal(200);
    const [endpoint] = (await get('/cl/v1/webhooks/endpoints', { token: biz.b.token })).body.data;
    await topup(biz.b.token, '500.00');
    await dead.waitFor(1);
    const attemptsPath = `/cl/v1/webhooks/endpoints/${endpoint.id}/attempts?outcome=FAILED`;
    for (let i = 0; i < 100; i++) {
      const res = await get(attemptsPath, { token: biz.b.token });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      if (res.body.data.length > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  before(() => setLook(suite.portal.page, { width: 390, dark: true }));
  afterEach(async () => suite.portal && (await suite.portal.assertClean()));

  it('sees the failing endpoint on the Overview, why and since when, from a fixed number of requests', async () => {
    const { page, requests } = suite.portal;
    await showPage(page, 'overview', 'Overview');
    await page.waitForSelector('::-p-text(1 webhook endpoint is failing or disabled)');
    expect(await page.$eval('main [role="alert"]', (el) => (el as HTMLElement).innerText)).to.include(endpointUrl).and.match(/failing since .+: .+ at /);
    // Every request so far: the Overview is the first page this suite shows.
    const asked = requests.map((r) => r.operation ?? '');
    expect(asked.filter((o) => o.endsWith('#listWebhookEndpointHealth')), 'one request of the endpoints needing attention').to.have.length(1);
    expect(asked.some((o) => o.endsWith('#listWebhookDeliveryAttempts')), 'no attempts read per endpoint').to.equal(false);
    await looksRight(page, 'the Overview');
  });

  it('finds the earlier bulk payout in the list, its counts and report, and opens a payout’s timeline', async () => {
    const { portal } = suite;
    const { page } = portal;
    await showPage(page, 'payouts', 'Payouts');
    await waitForRow(page, 'Bulk payouts, newest first', '2 items');
    expect((await tableRows(page, 'Bulk payouts, newest first'))[0]).to.include('2 items').and.include('2 pending');
    await clickButton(page, `Open bulk payout ${bulkId}`);
    await page.waitForSelector(`[id="list-${bulkId}-batch-title"]`);
    expect(await page.$eval(`[id="list-${bulkId}-batch-title"] code`, (el) => el.textContent)).to.equal(bulkId);
    await clickButton(page, 'Show report');
    await waitForRow(page, 'Batch report', 'day-2');
    const report = await tableRows(page, 'Batch report');
    expect(report).to.have.length(2);
    expect(report[0]).to.include('Pending').and.include('10.98 SAR');
    await looksRight(page, 'the Payouts page with a bulk payout open');
    await screenshotFor(page, 'portal-operator-bulk', { show: '#bulk-list-title' });

    const payoutId = await page.$eval('table tbody tr td:nth-child(3) code', (el) => el.textContent ?? '');
    await clickButton(page, `Open payout ${payoutId}`);
    await page.waitForSelector('ol.timeline li[data-code="payout.pending"]');
    const steps = await page.$$eval('ol.timeline li', (lis) => lis.map((li) => (li as HTMLElement).innerText));
    expect(steps[0]).to.match(/^Created/);
    expect(steps[1]).to.match(/^Payout pending/);
    await looksRight(page, 'a payout’s timeline');
    await screenshotFor(page, 'portal-operator-timeline', { show: 'section.card[aria-label^="Payout "]' });
    expect(portal.requests.some((r) => r.operation === 'core#listBulkPayouts' && r.status === 200)).to.equal(true);
    expect(portal.requests.some((r) => r.operation === 'core#listCustomerPayouts' && r.status === 200)).to.equal(true);
  });

  it('sees the failing endpoint’s red badge and success rate on Webhooks', async () => {
    const { page } = suite.portal;
    await showPage(page, 'webhooks', 'Webhooks');
    await page.waitForSelector('td [data-health="failing"]');
    const [row] = await tableRows(page, 'Webhook endpoints');
    expect(row).to.include('Failing').and.match(/0% of \d+ attempts?/);
    const badge = await page.$eval('[data-health="failing"]', (el) => getComputedStyle(el).backgroundColor);
    expect(badge, 'the badge is red').to.equal('rgb(255, 123, 114)');
    await looksRight(page, 'the Webhooks page with a failing endpoint');
    await screenshotFor(page, 'portal-operator-webhooks', { show: '#endpoints-heading' });
  });

  it('funds a wallet and sends a payout, each confirmed first, under an Idempotency-Key of its own', async () => {
    const { portal } = suite;
    const { page } = portal;
    const keys: string[] = [];
    page.on('request', (r) => {
      const key = r.headers()['idempotency-key'];
      if (r.method() === 'POST' && key) keys.push(key);
    });
    await showPage(page, 'move-money', 'Move money');
    await page.waitForSelector('#fund-wallet_id');
    await page.select('#fund-wallet_id', wallet.id);
    await page.type('#fund-amount', '40.00');
    await clickButton(page, 'Review', 'section[aria-labelledby="fund-title"]');
    await page.waitForSelector(`::-p-text(Fund 40.00 SAR to ${wallet.name} · wallet ${wallet.account_number})`);
    expect(portal.requests.filter((r) => r.operation === 'closed-loop#createFund'), 'nothing is sent before Confirm').to.deep.equal([]);
    await looksRight(page, 'a fund to confirm');
    await screenshotFor(page, 'portal-operator-confirm', { show: '#fund-title' });
    await clickButton(page, 'Confirm', 'section[aria-labelledby="fund-title"]');
    await page.waitForSelector('section[aria-labelledby="fund-title"] .done');
    const funded = await page.$eval('section[aria-labelledby="fund-title"] .done', (el) => (el as HTMLElement).innerText);
    expect(funded).to.match(/^Done: 40\.00 SAR, transaction TXN\d{12} \(success\)/);
    expect(await page.$eval('section[aria-labelledby="fund-title"] .done a', (a) => a.getAttribute('href'))).to.equal('#wallets');
    expect((await get(`/cl/v1/wallets/${wallet.id}`, { token: suite.biz.b.token })).body.balance).to.equal('40.00');

    await page.type('#payout-wallet', customer.wallet_account_number);
    await page.type('#payout-amount', '15.98');
    await page.type('#payout-reference', 'day-single');
    await clickButton(page, 'Review', 'section[aria-labelledby="payout-title"]');
    await page.waitForSelector(`::-p-text(Pay out 15.98 SAR to)`);
    expect(await mainText(page)).to.include(`wallet ${customer.wallet_account_number}`);
    await clickButton(page, 'Confirm', 'section[aria-labelledby="payout-title"]');
    await page.waitForSelector('section[aria-labelledby="payout-title"] .done');
    const paid = await page.$eval('section[aria-labelledby="payout-title"] .done', (el) => (el as HTMLElement).innerText.replace(/\s+/g, ' '));
    expect(paid).to.match(/^Payout [0-9a-f-]{36} Copy is pending\./);
    await looksRight(page, 'Move money after a payout');
    expect(keys).to.have.length(2);
    expect(new Set(keys).size, 'a key per attempt').to.equal(2);
    for (const key of keys) expect(key).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    // The result's link leads to the payout, listed by its reference.
    await page.click('section[aria-labelledby="payout-title"] .done a');
    await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Payouts');
    await page.type('#payouts-reference', 'day-single');
    await clickButton(page, 'Show payouts');
    await waitForRow(page, 'Payouts, newest first', '15.98 SAR');
    await looksRight(page, 'the Payouts page after the payout');
  });
});
