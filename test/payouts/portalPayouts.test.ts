/**
 * The portal's Payouts page in headless Chromium (harness: test/support/portal.ts): a bulk
 * payout file chosen, previewed (the row the service will reject for its value is marked
 * before anything is sent), sent, reported and its report saved as CSV; a payout's status
 * looked up by id; the payouts listed, filtered and one's timeline opened; a bulk payout made
 * through the API found in the list with its counts. Every request is a documented operation answered as documented, none
 * leaves the service's origin, no console error, and axe finds no serious violation.
 */
import { expect } from 'chai';
import { activeCustomer } from '../support/customers.js';
import { get } from '../support/client.js';
import { checkA11y, mainText, showPage } from '../support/portal.js';
import { chooseFile, clickButton, portalSuiteHooks, tableRows, waitForRow } from '../support/portalPages.js';
import { createPayout, payoutReaching, sendBulkPayout, topupPayoutAccount } from '../support/payouts.js';

describe('Portal Payouts page in headless Chromium', function () {
  this.timeout(240_000);
  let customer: any;
  const suite = portalSuiteHooks('the portal Payouts page', async (biz) => {
    customer = await activeCustomer(biz.b);
    await topupPayoutAccount(biz.b, '1000.00');
  });
  before(() => showPage(suite.portal.page, 'payouts', 'Payouts'));

  it('previews a bulk payout file, sends it, shows its report and saves the report as CSV', async () => {
    const { portal, biz, downloads } = suite;
    const { page } = portal;
    await checkA11y(page, 'the Payouts page');
    // `.98` keeps the sandbox's payout PENDING, so that the saved report is the one the API answers.
    const csv = [
      'payout_amount,payout_purpose,external_reference,mobileNumber',
      `10.98,Bonus,portal-ok,${customer.mobile_number}`,
      `1.005,Bonus,portal-bad-amount,${customer.mobile_number}`,
      '3.98,,portal-unknown,966500000001',
    ].join('\n');
    await chooseFile(page, '#bulk-file', 'bonus.csv', csv);
    await waitForRow(page, 'Rows of the file', 'portal-unknown');
    const preview = await tableRows(page, 'Rows of the file');
    expect(preview).to.have.length(3);
    expect(preview[0]).to.include('To be checked by the service');
    expect(preview[1]).to.include('Rejected: payout_amount: must be a decimal string with at most two decimals');
    expect(preview[2], 'a well-formed unknown number is for the service').to.include('To be checked by the service');
    expect(portal.requests.filter((r) => r.operation === 'core#createBulkPayout'), 'nothing is sent before the user sends').to.deep.equal([]);
    await checkA11y(page, 'the Payouts page with a preview');

    await clickButton(page, 'Send 3 payouts');
    await page.waitForSelector('#bulk-batch-title');
    await page.waitForNetworkIdle({ idleTime: 200 });
    const sent = portal.requests.filter((r) => r.operation === 'core#createBulkPayout');
    expect(sent.map((r) => r.status)).to.deep.equal([200]);
    const batchId = await page.$eval('#bulk-batch-title code', (el) => el.textContent ?? '');
    expect(await page.$eval('td[data-state="REJECTED"]', (el) => el.textContent)).to.equal('2');

    await clickButton(page, 'Show report');
    await waitForRow(page, 'Batch report', 'portal-unknown');
    const report = await tableRows(page, 'Batch report');
    expect(report[1]).to.include('Rejected').and.include('VALIDATION_ERROR: payout_amount: must be a decimal string with at most two decimals');
    expect(report[2]).to.include('CUSTOMER_NOT_FOUND');

    await clickButton(page, 'Download report (CSV)');
    const saved = await downloads.saved(`bulk-payout-${batchId}.csv`);
    const served = await get(`/bulk-payouts/${batchId}/report.csv`, { token: biz.b.token });
    expect(saved).to.equal(served.body);
    expect(saved.trim().split('\n')).to.have.length(4);
    await checkA11y(page, 'the Payouts page with a batch report');
    await portal.assertClean();
  });

  it("shows a payout's status looked up by its id", async () => {
    const { portal, biz } = suite;
    const { page } = portal;
    const created = await createPayout(biz.b, { payout_amount: '12.99', customer_id: customer.id, payout_purpose: 'Refund' });
    await page.type('#payout-id', created.payout_id);
    await clickButton(page, 'Look up payout');
    await page.waitForSelector('dd[data-field="status"]');
    const text = await mainText(page);
    expect(text).to.include(created.payout_id).and.include('12.99 SAR').and.include('Refund');
    expect(await page.$eval('dd[data-field="status"]', (el) => el.textContent)).to.be.oneOf(['Pending', 'Processing']);
    await page.waitForNetworkIdle({ idleTime: 200 });
    expect(portal.requests.filter((r) => r.operation === 'core#getPayoutStatus').map((r) => r.status)).to.deep.equal([200]);
    await checkA11y(page, 'the Payouts page with a payout');
    await portal.assertClean();
  });

  it('lists payouts by status and external reference, opens a timeline and finds a bulk payout in the list', async () => {
    const { portal, biz } = suite;
    const { page } = portal;
    const reference = `portal-list-${Date.now()}`;
    // `.97` completes in the sandbox: its timeline has more than its creation.
    const done = await createPayout(biz.b, { payout_amount: '7.97', customer_id: customer.id, external_reference: reference });
    await payoutReaching(biz.b, done.payout_id, 'COMPLETED');
    const bulk = await sendBulkPayout(biz.b, [{ payout_amount: '2.98', customer_id: customer.id, external_reference: `${reference}-bulk` }]);
    expect(bulk.status).to.equal(200);
    // Leaving the page and coming back loads its lists again.
    await showPage(page, 'overview', 'Overview');
    await showPage(page, 'payouts', 'Payouts');
    await waitForRow(page, 'Bulk payouts, newest first', '1 item');
    const bulkRows = await tableRows(page, 'Bulk payouts, newest first');
    expect(bulkRows[0]).to.match(/1 (pending|processing|completed)/);
    await clickButton(page, `Open bulk payout ${bulk.body.bulk_payout_id}`);
    await page.waitForSelector(`[id="list-${bulk.body.bulk_payout_id}-batch-title"]`);

    await page.select('#payouts-status', 'COMPLETED');
    await page.type('#payouts-reference', reference);
    await clickButton(page, 'Show payouts');
    await page.waitForFunction(() => {
      const t = [...document.querySelectorAll('table')].find((x) => x.caption?.textContent === 'Payouts, newest first');
      return t && t.tBodies[0].rows.length === 1;
    });
    const [row] = await tableRows(page, 'Payouts, newest first');
    expect(row).to.include('Completed').and.include('7.97 SAR').and.include(reference);
    const listed = portal.requests.filter((r) => r.operation === 'core#listCustomerPayouts').map((r) => r.url);
    expect(listed.at(-1)).to.equal(`/payouts/?status=COMPLETED&external_reference=${reference}&limit=20`);
    await clickButton(page, `Open payout ${done.payout_id}`);
    await page.waitForSelector('ol.timeline li[data-code="payout.completed"]');
    const steps = await page.$$eval('ol.timeline li', (lis) => lis.map((li) => (li as HTMLElement).innerText));
    expect(steps[0]).to.match(/^Created/);
    expect(steps.at(-1)).to.match(/^Payout completed/);
    await checkA11y(page, 'the Payouts page with a timeline');
    await page.waitForNetworkIdle({ idleTime: 200 });
    await portal.assertClean();
  });

  it('shows a long file’s preview a page at a time, and counts rows in the right number', async () => {
    const { portal } = suite;
    const { page } = portal;
    const lines = Array.from({ length: 120 }, (_, i) => `1.98,row-${i + 1},${customer.id}`);
    await chooseFile(page, '#bulk-file', 'long.csv', ['payout_amount,external_reference,customer_id', ...lines].join('\n'));
    await waitForRow(page, 'Rows of the file', 'row-1');
    expect(await tableRows(page, 'Rows of the file')).to.have.length(50);
    expect(await mainText(page)).to.include('120 rows: 0 will be rejected').and.include('Rows 1 to 50 of 120');
    await page.waitForSelector('button::-p-text(Send 120 payouts)');
    await clickButton(page, 'Next rows');
    await waitForRow(page, 'Rows of the file', 'row-51');
    expect((await tableRows(page, 'Rows of the file')).at(-1)).to.include('row-100');
    await checkA11y(page, 'a long preview');

    await chooseFile(page, '#bulk-file', 'one.csv', `payout_amount,external_reference,customer_id\n1.98,only-row,${customer.id}`);
    await waitForRow(page, 'Rows of the file', 'only-row');
    expect(await mainText(page)).to.include('1 row: 0 will be rejected').and.not.include('Rows 1 to');
    await page.waitForSelector('button::-p-text(Send 1 payout)');
    expect(portal.requests.filter((r) => r.operation === 'core#createBulkPayout'), 'nothing sent').to.have.length(1);
  });
});
