/**
 * The portal's search box, in headless Chromium, at 1280 px light and 390 px dark: `/` moves
 * the focus to the box (and types a `/` in a field that has the focus), `CB-77` finds the
 * payout whose reference is `CB-7781` and its customer's other objects not, the hits are
 * grouped by type, and Enter on a hit opens the payout's page (`#/payouts/<id>`).
 * Every request is a documented operation answered as documented; axe finds no serious violation.
 */
import { expect } from 'chai';
import { activeCustomer } from '../support/customers.js';
import { assertNoPageOverflow, checkA11y, mainText, retype, setLook, showPage, tabTo } from '../support/portal.js';
import { portalSuiteHooks } from '../support/portalPages.js';
import { createPayout, topupPayoutAccount } from '../support/payouts.js';

describe('Portal: search from the header', function () {
  this.timeout(180_000);
  let payoutId: string;
  const suite = portalSuiteHooks('the portal search', async (biz) => {
    const customer = await activeCustomer(biz.b);
    await topupPayoutAccount(biz.b, '100.00');
    payoutId = (await createPayout(biz.b, { payout_amount: '7.81', customer_id: customer.id, external_reference: 'CB-7781' })).payout_id;
  });
  afterEach(async () => suite.portal && (await suite.portal.assertClean()));

  for (const look of [{ width: 1280, dark: false }, { width: 390, dark: true }]) {
    it(`finds a payout by the start of its reference and opens it, at ${look.width} px ${look.dark ? 'dark' : 'light'}`, async () => {
      const { page } = suite.portal;
      await setLook(page, look);
      await showPage(page, 'wallets', 'Wallets');
      // In a field, `/` is a character; elsewhere it moves the focus to the search box.
      await tabTo(page, '#wallet-account-number');
      await page.keyboard.type('/');
      expect(await page.$eval('#wallet-account-number', (i) => (i as HTMLInputElement).value)).to.equal('/');
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.keyboard.press('/');
      expect(await page.evaluate(() => document.activeElement?.id)).to.equal('portal-search');
      await retype(page, 'CB-77');
      await page.keyboard.press('Enter');
      await page.waitForSelector('.search-hits a');
      const groups = await page.$$eval('.search-hits h2', (hs) => hs.map((h) => h.textContent));
      expect(groups).to.include('Payouts');
      const link = `.search-hits a[href="#/payouts/${payoutId}"]`;
      expect(await page.$eval(link, (a) => a.textContent)).to.equal('CB-7781');
      await assertNoPageOverflow(page, `the search's hits at ${look.width} px`);
      await checkA11y(page, `the search's hits at ${look.width} px`);
      await tabTo(page, link);
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Payout 7.81 SAR · CB-7781');
      expect(await mainText(page)).to.include(payoutId);
      expect(await page.$('.search-hits'), 'the hits close once one is opened').to.equal(null);
      await checkA11y(page, `the payout opened from the search at ${look.width} px`);
    });
  }
});
