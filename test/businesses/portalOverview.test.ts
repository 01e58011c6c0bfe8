/**
 * The Overview answers "is anything wrong", in headless Chromium at 1280 px light and 390 px
 * dark: today's payouts in the business's time zone (volume with its currency, completed,
 * pending and failed counts) with an alert for the failed, the payout account below its
 * low-balance threshold, a failing webhook endpoint, and the accounts' 30 days drawn with
 * labelled axes and values. The page makes the same requests with one endpoint as with four.
 * Every request is a documented operation answered as documented; axe finds no serious
 * violation, no raw validator message shows, nothing is wider than the screen.
 */
import { expect } from 'chai';
import type { Page } from 'puppeteer-core';
import { get, post, request } from '../support/client.js';
import { eventually } from '../support/assertions.js';
import { activeCustomer } from '../support/customers.js';
import { assertNoPageOverflow, checkA11y, mainText, setLook, showPage, type PortalPage } from '../support/portal.js';
import { portalSuiteHooks } from '../support/portalPages.js';
import { createPayout, payoutReaching, topupPayoutAccount } from '../support/payouts.js';
import { receiversOfSuite, testSecret } from '../support/webhooks.js';
import { topup, type TestBusiness } from '../support/fixtures.js';

/** Registers a webhook endpoint for topups at `url`; asserts 200. */
async function register(b: TestBusiness, url: string): Promise<void> {
  const res = await post('/cl/v1/webhooks/endpoints', { url, secret: testSecret(), events: ['topup.complete'] }, { token: b.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
}

/** Opens the Overview afresh and waits until its parts have loaded; the operations it asked for, in order. */
async function overviewRequests(portal: PortalPage): Promise<string[]> {
  const { page } = portal;
  await showPage(page, 'events', 'Events');
  await page.waitForNetworkIdle({ idleTime: 300 });
  const before = portal.requests.length;
  await showPage(page, 'overview', 'Overview');
  await page.waitForSelector('dl[aria-label="Payouts today"]');
  await page.waitForSelector('svg.balance-chart');
  await page.waitForNetworkIdle({ idleTime: 500 });
  return portal.requests.slice(before).map((r) => r.operation ?? `${r.method} ${r.url}`).sort();
}

/** The text of each axis label of the balance charts, chart by chart. */
const axisLabels = (page: Page) =>
  page.$$eval('svg.balance-chart', (svgs) => svgs.map((s) => [...s.querySelectorAll('text.axis')].map((t) => t.textContent ?? '')));

describe('Portal: the Overview says what is wrong', function () {
  this.timeout(240_000);
  const receiver = receiversOfSuite();
  let b: TestBusiness;
  const suite = portalSuiteHooks('the portal overview', async (biz) => {
    b = biz.b;
    const zoned = await request('PATCH', `/cl/v1/businesses/${b.id}`, { token: b.token, body: { time_zone: 'Asia/Riyadh', payout_low_balance_threshold: '100000.00' } });
    expect(zoned.status, JSON.stringify(zoned.body)).to.equal(200);
    await register(b, (await receiver(() => ({ status: 500, body: 'down' }))).url);
    const customer = await activeCustomer(b);
    await topupPayoutAccount(b, '500.00');
    // The sandbox rail: .13 fails, .98 stays PENDING, any other completes.
    const made = [];
    for (const amount of ['10.00', '5.13', '1.98']) made.push(await createPayout(b, { payout_amount: amount, customer_id: customer.id }));
    await payoutReaching(b, made[0].payout_id, 'COMPLETED', 90_000);
    await payoutReaching(b, made[1].payout_id, 'FAILED', 90_000);
  });
  afterEach(async () => suite.portal && (await suite.portal.assertClean()));

  it('says so in a sentence when an account did not move in 30 days', async () => {
    const { page } = suite.portal;
    await setLook(page, { width: 390, dark: true });
    await overviewRequests(suite.portal);
    // The operational account has not moved yet: it has a sentence, the payout account a chart.
    expect(await mainText(page)).to.include('No money moved in the last 30 days: the balance stayed 0.00 SAR.');
  });

  /** Once: the operational account topped up, whose topup.complete the failing endpoint refuses. */
  let failing: Promise<void> | undefined;
  const endpointFailing = () =>
    (failing ??= (async () => {
      await topup(b.token, '10.00');
      await eventually(async () => {
        const health = await get('/cl/v1/webhooks/endpoint-health?state=FAILING', { token: b.token });
        expect(health.body.data, JSON.stringify(health.body)).to.have.length(1);
      }, 60_000);
    })());

  for (const look of [{ width: 1280, dark: false }, { width: 390, dark: true }]) {
    it(`shows today's payouts, the alerts and the charts' axes at ${look.width} px ${look.dark ? 'dark' : 'light'}`, async () => {
      const { page } = suite.portal;
      await setLook(page, look);
      await endpointFailing();
      await overviewRequests(suite.portal);
      const figures = await page.$$eval('dl[aria-label="Payouts today"] div', (divs) =>
        Object.fromEntries(divs.map((d) => [d.querySelector('dt')!.textContent, (d.querySelector('dd') as HTMLElement).innerText])),
      );
      expect(figures).to.deep.equal({ Volume: '17.11 SAR', Payouts: '3', Completed: '1', Pending: '1', Failed: '1' });
      const text = await mainText(page);
      expect(text).to.include('Since midnight in Asia/Riyadh.');
      const alerts = await page.$$eval('main [role="alert"]', (els) => els.map((e) => (e as HTMLElement).innerText));
      expect(alerts.join('\n')).to.include('1 payout failed today').and.to.include('5.13 SAR did not reach its customer');
      expect(alerts.join('\n')).to.include('The payout account is low').and.to.include('100,000.00 SAR');
      expect(alerts.join('\n')).to.include('1 webhook endpoint is failing or disabled').and.to.include('HTTP 500');
      const charts = await axisLabels(page);
      expect(charts, 'both accounts moved').to.have.length(2);
      for (const labels of charts) {
        expect(labels.filter((l) => /^-?[\d,]+\.\d{2}$/.test(l)).length, `values on the axis: ${labels}`).to.be.at.least(2);
        expect(labels.filter((l) => /^\d{1,2} [A-Z][a-z]{2}$/.test(l)), `days on the axis: ${labels}`).to.have.length(2);
      }
      expect(charts[0]).to.include.members(['10.00', '0.00']);
      expect(charts[1]).to.include.members(['500.00', '0.00']);
      await assertNoPageOverflow(page, `the Overview at ${look.width} px`);
      await checkA11y(page, `the Overview at ${look.width} px`);
    });
  }

  it('makes the same requests with one webhook endpoint as with four', async () => {
    const { page } = suite.portal;
    await setLook(page, { width: 1280, dark: false });
    const one = await overviewRequests(suite.portal);
    for (let i = 0; i < 3; i++) await register(b, (await receiver()).url);
    const four = await overviewRequests(suite.portal);
    expect(four).to.deep.equal(one);
    expect(one).to.include('core#getPayoutSummary');
  });
});
