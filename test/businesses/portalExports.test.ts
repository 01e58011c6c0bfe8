/**
 * "Export CSV" in the portal, in headless Chromium at 390 px dark: the payouts filtered by
 * their external reference are saved as a CSV file holding exactly the rows the list shows
 * (each cell as the API has it), and the other lists (bulk payouts, customers, events,
 * transactions of all wallets) save theirs with their filters. Every request is a documented
 * operation answered as documented; axe finds no serious violation, no raw validator message
 * shows, nothing is wider than the screen.
 */
import { expect } from 'chai';
import type { Page } from 'puppeteer-core';
import { get } from '../support/client.js';
import { activeCustomer } from '../support/customers.js';
import { assertNoPageOverflow, checkA11y, setLook, showPage, tabTo, retype } from '../support/portal.js';
import { clickButton, portalSuiteHooks, tableRows, waitForRow } from '../support/portalPages.js';
import { createPayout, payoutReaching, topupPayoutAccount } from '../support/payouts.js';
import { uniq } from '../support/fixtures.js';
import { csvRecords as rowsOf } from '../support/csv.js';

/** Clicks "Export CSV" in the form labelled `form`. */
const exportFrom = (page: Page, form: string) => clickButton(page, 'Export CSV', `form[aria-label="${form}"]`);

describe('Portal: CSV exports of the lists', function () {
  this.timeout(240_000);
  const wanted = `EXP-${uniq()}`;
  const formula = `=other-${uniq()}`;
  const payouts: any[] = [];
  let customer: any;
  const suite = portalSuiteHooks('the portal exports', async (biz) => {
    customer = await activeCustomer(biz.b);
    await topupPayoutAccount(biz.b, '100.00');
    for (const [amount, reference] of [['1.25', `other-${uniq()}`], ['2.50', wanted], ['3.75', formula]]) {
      payouts.push(await createPayout(biz.b, { payout_amount: amount, customer_id: customer.id, external_reference: reference }));
    }
    for (const p of payouts) await payoutReaching(biz.b, p.payout_id, 'COMPLETED');
  });
  afterEach(async () => suite.portal && (await suite.portal.assertClean()));

  it('saves the payouts the filters show, and nothing else, at 390 px dark', async () => {
    const { page } = suite.portal;
    await setLook(page, { width: 390, dark: true });
    await showPage(page, 'payouts', 'Payouts');
    await waitForRow(page, 'Payouts, newest first', wanted);
    await tabTo(page, '#payouts-reference');
    await retype(page, wanted);
    await clickButton(page, 'Show payouts', 'form[aria-label="Payout filters"]');
    await page.waitForFunction((c) => {
      const table = [...document.querySelectorAll('table')].find((t) => t.caption?.textContent?.trim() === c);
      return table?.tBodies[0].rows.length === 1;
    }, {}, 'Payouts, newest first');
    expect((await tableRows(page, 'Payouts, newest first')).join('\n')).to.include(wanted);
    await exportFrom(page, 'Payout filters');
    const rows = rowsOf(await suite.downloads.saved('payouts.csv'));
    const shown = (await get(`/payouts/${payouts[1].payout_id}`, { token: suite.biz.b.token })).body;
    expect(rows).to.deep.equal([
      {
        created_at: shown.created_at,
        payout_id: shown.payout_id,
        status: 'COMPLETED',
        payout_amount: '2.50',
        currency: shown.currency,
        payout_purpose: '',
        external_reference: wanted,
        customer_id: customer.id,
        wallet_account_number: shown.wallet_account_number,
        transaction_id: shown.transaction_id,
        outcome_transaction_id: shown.outcome_transaction_id ?? '',
        failure_code: '',
        updated_at: shown.updated_at,
      },
    ]);
    await assertNoPageOverflow(page, 'the filtered payouts at 390 px');
    await checkA11y(page, 'the filtered payouts at 390 px');
  });

  it('saves the bulk payouts, customers, events and transactions of all wallets from their lists', async () => {
    const { page } = suite.portal;
    await setLook(page, { width: 390, dark: true });
    await showPage(page, 'payouts', 'Payouts');
    await exportFrom(page, 'Bulk payout filters');
    expect(rowsOf(await suite.downloads.saved('bulk-payouts.csv'))).to.deep.equal([]);

    await showPage(page, 'customers', 'Customers');
    await waitForRow(page, 'Customers, newest first', customer.mobile_number);
    await exportFrom(page, 'Customer filters');
    expect(rowsOf(await suite.downloads.saved('customers.csv')).map((r) => r.id)).to.deep.equal([customer.id]);

    await showPage(page, 'events', 'Events');
    // The page's first list is read before its filter form takes another.
    await page.waitForFunction(() => !document.querySelector('main button[type="submit"][disabled]'));
    await page.select('#event-code', 'payout.completed');
    await clickButton(page, 'Show events');
    await page.waitForFunction(() => !document.querySelector('main button[type="submit"][disabled]'));
    await clickButton(page, 'Export CSV');
    const events = rowsOf(await suite.downloads.saved('events.csv'));
    expect(events.map((e) => e.code)).to.deep.equal(['payout.completed', 'payout.completed', 'payout.completed']);

    await showPage(page, 'wallets', 'Wallets');
    await page.select('#all-tx-type', 'CUSTOMER_PAYOUT');
    await clickButton(page, 'Show transactions', 'form[aria-label="Transaction filters"]');
    await page.waitForFunction(() => !document.querySelector('main button[type="submit"][disabled]'));
    await exportFrom(page, 'Transaction filters');
    const transactions = rowsOf(await suite.downloads.saved('transactions.csv'));
    expect(transactions.map((t) => t.amount).sort()).to.deep.equal(['1.25', '2.50', '3.75']);
    expect(transactions.map((t) => t.external_reference)).to.include(`'${formula}`);
    await assertNoPageOverflow(page, 'the transactions of all wallets at 390 px');
    await checkA11y(page, 'the transactions of all wallets at 390 px');
  });
});
