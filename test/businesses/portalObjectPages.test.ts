/**
 * The portal's object pages, in headless Chromium: at 390 px dark, a payout found by part of
 * its reference opens its page (`#/payouts/<id>`), which leads to its customer, the
 * customer's wallet, the wallet's ledger transaction and, from the payout's timeline, a
 * webhook delivery on the endpoint's page; Back returns through each to the payout; a reload
 * of an object's address shows the object. At 1280 px light and 390 px dark, the page of each
 * kind (payout, bulk payout, customer, wallet, transaction, card, webhook endpoint, event) has
 * no element wider than the screen, no serious accessibility violation and no raw message.
 * Every request is a documented operation answered as documented.
 */
import { expect } from 'chai';
import type { Page } from 'puppeteer-core';
import { issuedCard } from '../support/cards.js';
import { get, post } from '../support/client.js';
import { eventually } from '../support/assertions.js';
import { assertNoPageOverflow, checkA11y, mainText, retype, setLook } from '../support/portal.js';
import { portalSuiteHooks } from '../support/portalPages.js';
import { createPayout, payoutReaching, sendBulkPayout, topupPayoutAccount } from '../support/payouts.js';
import { receiversOfSuite, testSecret } from '../support/webhooks.js';

/** Waits until the object page's heading reads `title` (a RegExp: its start). */
async function headingIs(page: Page, title: RegExp): Promise<string> {
  await page.waitForFunction((source) => new RegExp(source).test(document.querySelector('main h1')?.textContent ?? ''), { timeout: 15_000 }, title.source);
  return page.$eval('main h1', (h) => h.textContent ?? '');
}

/** Follows the first link in main whose address is `href`, and waits for the heading `title`. */
async function follow(page: Page, href: string, title: RegExp): Promise<void> {
  await page.waitForSelector(`main a[href="${href}"]`);
  await page.$eval(`main a[href="${href}"]`, (a) => (a as HTMLAnchorElement).click());
  await headingIs(page, title);
}

/** The browser's Back, then the heading `title`. */
async function back(page: Page, title: RegExp): Promise<void> {
  await page.goBack();
  await headingIs(page, title);
}

describe('Portal: a page per object, with its address and links', function () {
  this.timeout(240_000);
  const receiver = receiversOfSuite();
  const made = {} as Record<string, string>;
  const suite = portalSuiteHooks('the object pages', async (biz) => {
    const hooks = await receiver();
    const endpoint = await post('/cl/v1/webhooks/endpoints', { url: hooks.url, secret: testSecret(), events: ['payout.pending', 'payout.processing', 'payout.completed', 'payout.failed'] }, { token: biz.b.token });
    expect(endpoint.status).to.equal(200);
    made.endpoint = (await get('/cl/v1/webhooks/endpoints', { token: biz.b.token })).body.data[0].id;
    const { customer, card } = await issuedCard(biz.b);
    made.customer = customer.id;
    made.card = card.id;
    made.wallet = (await get(`/customers/${customer.id}`, { token: biz.b.token })).body.wallet_id;
    await topupPayoutAccount(biz.b, '100.00');
    // `.97` completes in the sandbox: the payout has several events, each delivered.
    const payout = await createPayout(biz.b, { payout_amount: '7.97', customer_id: customer.id, external_reference: 'CB-7797' });
    made.payout = payout.payout_id;
    const done = await payoutReaching(biz.b, payout.payout_id, 'COMPLETED', 60_000);
    made.transaction = done.transaction_id;
    await hooks.waitFor(2, 60_000);
    // Each of the payout's events is delivered and its attempt recorded before the page reads them.
    const events = (await get(`/events?object_id=${payout.payout_id}`, { token: biz.b.token })).body.data;
    made.event = events.at(-1).id;
    await eventually(async () => {
      const attempts = (await get(`/cl/v1/webhooks/endpoints/${made.endpoint}/attempts?payout_id=${payout.payout_id}&outcome=SUCCEEDED`, { token: biz.b.token })).body.data;
      expect(new Set(attempts.map((a: { event_id: string }) => a.event_id)).size).to.equal(events.length);
    }, 60_000);
    const bulk = await sendBulkPayout(biz.b, [{ payout_amount: '1.98', customer_id: customer.id, external_reference: 'CB-bulk-1' }]);
    expect(bulk.status).to.equal(200);
    made.bulk = bulk.body.bulk_payout_id;
  });
  afterEach(async () => suite.portal && (await suite.portal.assertClean()));

  it('finds a payout by part of its reference, follows its links and comes back, at 390 px dark', async () => {
    const { page } = suite.portal;
    await setLook(page, { width: 390, dark: true });
    await page.focus('#portal-search');
    await retype(page, 'B-779');
    await page.keyboard.press('Enter');
    const hit = `.search-hits a[href="#/payouts/${made.payout}"]`;
    await page.waitForSelector(hit);
    await page.$eval(hit, (a) => (a as HTMLAnchorElement).click());
    const title = await headingIs(page, /^Payout /);
    expect(title).to.equal('Payout 7.97 SAR · CB-7797');
    expect(await page.evaluate(() => window.location.hash)).to.equal(`#/payouts/${made.payout}`);
    // The timeline: the payout's events, oldest first, each delivered to the endpoint.
    await page.waitForSelector(`ol.timeline .delivery[data-endpoint="${made.endpoint}"]`);
    const steps = await page.$$eval('ol.timeline > li', (lis) => lis.map((li) => (li as HTMLElement).innerText));
    expect(steps[0]).to.match(/^Created/);
    expect(steps.at(-1)).to.match(/^Payout completed/);
    await page.waitForFunction(() => /attempts?, latest Succeeded/.test((document.querySelector('ol.timeline .delivery') as HTMLElement | null)?.innerText ?? ''));
    await assertNoPageOverflow(page, 'the payout’s page at 390 px');
    await checkA11y(page, 'the payout’s page at 390 px');

    // Payout → customer → wallet → ledger transaction, then Back through each to the payout.
    await follow(page, `#/customers/${made.customer}`, /^Customer /);
    await follow(page, `#/wallets/${made.wallet}`, /^Wallet /);
    await page.waitForSelector('main a[href^="#/transactions/"]');
    await follow(page, await page.$eval('main a[href^="#/transactions/"]', (a) => a.getAttribute('href')!), /^.+ TXN\d{12} · .+ SAR$/);
    expect(await mainText(page)).to.include('Entries');
    await back(page, /^Wallet /);
    await back(page, /^Customer /);
    await back(page, /^Payout 7\.97 SAR/);

    // Payout → its ledger transaction by reference → Back; payout → a delivery → Back.
    await follow(page, `#/transactions/${made.transaction}`, new RegExp(`^Customer payout ${made.transaction}`));
    await back(page, /^Payout 7\.97 SAR/);
    // The heading shows before the timeline's deliveries are read, so wait for the link itself.
    const delivery = await page.waitForSelector('ol.timeline .delivery a');
    await follow(page, `#/webhook-endpoints/${made.endpoint}/${(await delivery!.evaluate((a) => a.getAttribute('href')!)).split('/')[3]}`, /^Webhook endpoint /);
    await page.waitForSelector('[data-delivery] pre');
    expect(await page.$eval('[data-delivery]', (s) => (s as HTMLElement).innerText)).to.match(/Attempt 1: Succeeded · 200/);
    await assertNoPageOverflow(page, 'a delivery on the endpoint’s page at 390 px');
    await checkA11y(page, 'a delivery on the endpoint’s page at 390 px');
    await back(page, /^Payout 7\.97 SAR/);

    // A reload of an object's address shows the object (once the page's requests are answered:
    // a reload cuts the body of an answer still arriving, which the recorder then cannot check).
    await page.waitForNetworkIdle({ idleTime: 300 });
    await page.reload();
    expect(await headingIs(page, /^Payout /)).to.equal('Payout 7.97 SAR · CB-7797');
    await page.waitForNetworkIdle({ idleTime: 300 });
  });

  for (const look of [{ width: 1280, dark: false }, { width: 390, dark: true }]) {
    it(`shows each kind's page within the screen, in words, at ${look.width} px ${look.dark ? 'dark' : 'light'}`, async () => {
      const { page } = suite.portal;
      await setLook(page, look);
      const pages: [string, RegExp, string][] = [
        [`#/payouts/${made.payout}`, /^Payout 7\.97 SAR/, 'ol.timeline'],
        [`#/bulk-payouts/${made.bulk}`, /^Bulk payout of 1 item/, 'table'],
        [`#/customers/${made.customer}`, /^Customer /, 'ol.timeline'],
        [`#/wallets/${made.wallet}`, /^Wallet /, 'table'],
        [`#/transactions/${made.transaction}`, /^Customer payout TXN/, 'table'],
        [`#/cards/${made.card}`, /^Card •••• \d{4}$/, 'dl.facts'],
        [`#/webhook-endpoints/${made.endpoint}`, /^Webhook endpoint http/, 'table'],
        [`#/events/${made.event}`, /^Event Payout /, '.deliveries'],
      ];
      for (const [address, title, shown] of pages) {
        await page.evaluate((a) => (window.location.hash = a), address);
        await headingIs(page, title);
        await page.waitForSelector(`main ${shown}`);
        await page.waitForNetworkIdle({ idleTime: 300 });
        const label = `${address.split('/')[1]}’s page at ${look.width} px`;
        await assertNoPageOverflow(page, label);
        await checkA11y(page, label);
      }
      // Each id on a page leads to its object's page: the card's wallet, the event's payout.
      await follow(page, `#/payouts/${made.payout}`, /^Payout 7\.97 SAR/);
    });
  }
});
