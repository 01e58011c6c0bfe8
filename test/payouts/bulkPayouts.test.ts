/**
 * Bulk payouts: a batch of mixed valid and invalid items (each invalid item
 * rejected alone, with E4's code), its counts per state, its report as JSON and CSV,
 * idempotent replay, and every documented error.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { expectProblem, expectValidation } from '../support/assertions.js';
import { get, post, request } from '../support/client.js';
import { activeCustomer, startSession } from '../support/customers.js';
import { newBusiness, type TestBusiness } from '../support/fixtures.js';
import { assertLedgerConsistent } from '../support/ledgerInvariants.js';
import { signatureHeaders } from '../support/operations.js';
import { bulkPayoutSettled, expectCountsOfReport, payoutBusiness, payoutBusinessHooks, payoutEventCodes, sendBulkPayout } from '../support/payouts.js';
import { running } from '../support/service.js';

const CSV_HEADER = 'item_index,payout_id,status,failure_code,failure_detail,payout_amount,currency,customer_id,external_reference';

describe('Bulk payouts: createBulkPayout, getBulkPayoutStatus, getBatchReport(Csv)', function () {
  this.timeout(60_000);
  let b: TestBusiness;
  let customer: any;

  payoutBusinessHooks((made) => ({ b, customer } = made), '100.00');

  it('pays the valid items and rejects each invalid one alone, with the reason; counts and report follow the payouts', async () => {
    const onboarding = await startSession(b);
    const items = [
      { payout_amount: '10.00', external_reference: 'bulk-0', mobileNumber: customer.mobile_number },
      { payout_amount: '1.005', external_reference: 'bulk-1', customer_id: customer.id },
      { payout_amount: '5.00', mobileNumber: '966500000001' },
      { payout_amount: '5.00', customer_id: onboarding.customer_id },
      { payout_amount: '5.00', customer_id: 'not-a-uuid' },
      { payout_amount: '5.00', customer_id: customer.id, mobileNumber: customer.mobile_number },
      { payout_amount: '95.00', customer_id: customer.id },
      { payout_amount: '20.13', payout_purpose: 'Refund', walletAccountNumber: customer.wallet_account_number },
    ];
    const res = await sendBulkPayout(b, items);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ item_count: 8 });
    expect(res.body.counts).to.deep.equal({ PENDING: 2, PROCESSING: 0, COMPLETED: 0, FAILED: 0, REJECTED: 6 });
    const id = res.body.bulk_payout_id;

    const settled = await bulkPayoutSettled(b, id);
    expect(settled.counts).to.deep.equal({ PENDING: 0, PROCESSING: 0, COMPLETED: 1, FAILED: 1, REJECTED: 6 });

    const report = await get(`/bulk-payouts/${id}/report`, { token: b.token });
    expect(report.status).to.equal(200);
    const rows = report.body.data;
    expect(rows.map((r: any) => [r.item_index, r.status, r.failure_code])).to.deep.equal([
      [0, 'COMPLETED', null],
      [1, 'REJECTED', 'VALIDATION_ERROR'],
      [2, 'REJECTED', 'CUSTOMER_NOT_FOUND'],
      [3, 'REJECTED', 'CUSTOMER_NOT_ACTIVE'],
      [4, 'REJECTED', 'VALIDATION_ERROR'],
      [5, 'REJECTED', 'VALIDATION_ERROR'],
      [6, 'REJECTED', 'INSUFFICIENT_FUNDS'],
      [7, 'FAILED', 'REJECTED_BY_BANK'],
    ]);
    expect(rows[0]).to.include({ payout_amount: '10.00', currency: 'SAR', customer_id: customer.id, external_reference: 'bulk-0', failure_detail: null });
    expect(rows[1]).to.include({ payout_id: null, payout_amount: null, external_reference: 'bulk-1' });
    expect(rows[1].failure_detail).to.match(/^payout_amount: /);
    expect(rows[3]).to.include({ customer_id: onboarding.customer_id, payout_amount: '5.00' });
    expect(rows[4].failure_detail).to.equal('customer_id: must be a UUID');
    expect(rows[6]).to.include({ customer_id: customer.id, payout_amount: '95.00' });
    // The payouts are E4's: the same events, the failed one's money back on the payout account.
    expect(await payoutEventCodes(b, rows[0].payout_id)).to.deep.equal(['payout.pending', 'payout.processing', 'payout.completed']);
    expect(await payoutEventCodes(b, rows[7].payout_id)).to.deep.equal(['payout.pending', 'payout.processing', 'payout.failed']);
    const account = await running().db('accounts').where({ business_id: b.id, kind: 'PAYOUT' }).first('balance');
    expect(account.balance).to.equal('90.00');

    const csv = await get(`/bulk-payouts/${id}/report.csv`, { token: b.token });
    expect(csv.status).to.equal(200);
    expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
    const lines = (csv.body as string).trim().split(/\r?\n/);
    expect(lines[0]).to.equal(CSV_HEADER);
    expect(lines).to.have.length(9);
    expect(lines[1]).to.equal(`0,${rows[0].payout_id},COMPLETED,,,10.00,SAR,${customer.id},bulk-0`);
    expect(lines[3]).to.equal(`2,,REJECTED,CUSTOMER_NOT_FOUND,No customer with mobile number 966500000001 for this business.,5.00,SAR,,`);
  });

  it('counts move with the payouts, in the batched steps and one at a time (the outcome helper, the rail callback), equal to the report at each point', async () => {
    const { b: biz, customer: receiver } = await payoutBusiness('100.00');
    // The sandbox rail by amount: .13 fails, .98 stays PENDING and .99 PROCESSING until decided.
    const amounts = ['1.00', '2.13', '3.98', '4.99', '5.98', '6.99', '7.99', '500.00'];
    const res = await sendBulkPayout(biz, amounts.map((payout_amount) => ({ payout_amount, customer_id: receiver.id })));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const id = res.body.bulk_payout_id;
    const wanted = { PENDING: 2, PROCESSING: 3, COMPLETED: 1, FAILED: 1, REJECTED: 1 };
    const deadline = Date.now() + 20_000;
    let now: any;
    do {
      if (now) await new Promise((r) => setTimeout(r, 200));
      now = (await get(`/bulk-payouts/${id}`, { token: biz.token })).body;
    } while (JSON.stringify(now.counts) !== JSON.stringify(wanted) && Date.now() < deadline);
    expect(now.counts).to.deep.equal(wanted);
    await expectCountsOfReport(biz, id, now.counts);

    const rows = (await get(`/bulk-payouts/${id}/report`, { token: biz.token })).body.data;
    const payoutOfAmount = (amount: string) => rows.find((r: any) => r.payout_amount === amount).payout_id;
    const decide = (amount: string, body: Record<string, unknown>) => post(`/testhelpers/payouts/${payoutOfAmount(amount)}/outcome`, body, { token: biz.token });
    expect((await decide('3.98', { status: 'COMPLETED' })).status).to.equal(200); // PENDING → PROCESSING → COMPLETED in one transaction
    expect((await decide('4.99', { status: 'FAILED', failure_code: 'TIMEOUT' })).status).to.equal(200);
    expect((await decide('5.98', { status: 'FAILED' })).status).to.equal(200);
    expect((await decide('6.99', { status: 'COMPLETED' })).status).to.equal(200);
    now = (await get(`/bulk-payouts/${id}`, { token: biz.token })).body;
    expect(now.counts).to.deep.equal({ PENDING: 0, PROCESSING: 1, COMPLETED: 3, FAILED: 3, REJECTED: 1 });
    await expectCountsOfReport(biz, id, now.counts);
    // A refused move (the payout is decided) moves no count.
    expectProblem(await decide('6.99', { status: 'FAILED' }), 409, 'PAYOUT_STATUS_NOT_ALLOWED');
    const callback = { event_id: `rail_${randomUUID().replaceAll('-', '')}`, payout_id: payoutOfAmount('7.99'), outcome: 'FAILED', failure_code: 'REJECTED_BY_BANK', occurred_at: new Date().toISOString() };
    expect((await post('/callbacks/payout-rail', callback, { headers: signatureHeaders({ signedBy: 'PAYOUT_RAIL' }, callback) })).body.result).to.equal('APPLIED');
    const settled = await bulkPayoutSettled(biz, id);
    expect(settled.counts).to.deep.equal({ PENDING: 0, PROCESSING: 0, COMPLETED: 3, FAILED: 4, REJECTED: 1 });
    await assertLedgerConsistent(running().db, biz.id);
  });

  it('rejects an item to a receiver not on the enforced whitelist (PAYOUT_RECEIVER_NOT_WHITELISTED)', async () => {
    const { b: biz, customer: listed } = await payoutBusiness('10.00');
    const stranger = await activeCustomer(biz);
    expect((await post('/payout-whitelist/entries', { entries: [{ customer_id: listed.id }] }, { token: biz.token })).status).to.equal(200);
    expect((await request('PUT', '/payout-whitelist/enforcement', { token: biz.token, body: { enforced: true } })).status).to.equal(200);
    const res = await sendBulkPayout(biz, [
      { payout_amount: '1.00', customer_id: listed.id },
      { payout_amount: '1.00', customer_id: stranger.id },
    ]);
    expect(res.body.counts).to.include({ PENDING: 1, REJECTED: 1 });
    const report = await get(`/bulk-payouts/${res.body.bulk_payout_id}/report`, { token: biz.token });
    expect(report.body.data[1]).to.include({ status: 'REJECTED', failure_code: 'PAYOUT_RECEIVER_NOT_WHITELISTED', customer_id: stranger.id });
  });

  it('answers a replay with the same batch and Idempotent-Replayed, concurrent duplicates make one batch; another body is 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const key = randomUUID();
    const items = [{ payout_amount: '1.00', customer_id: customer.id }, { payout_amount: '0.00', customer_id: customer.id }];
    const answers = await Promise.all(Array.from({ length: 5 }, () => sendBulkPayout(b, items, key)));
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).to.equal(200);
    expect(new Set(answers.map((a) => a.body.bulk_payout_id)).size).to.equal(1);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).to.have.length(4);
    const first = answers.find((a) => a.headers.get('idempotent-replayed') !== 'true')!;
    expect(first.body.counts).to.deep.equal({ PENDING: 1, PROCESSING: 0, COMPLETED: 0, FAILED: 0, REJECTED: 1 });
    await bulkPayoutSettled(b, first.body.bulk_payout_id);
    const later = await sendBulkPayout(b, items, key);
    expect(later.headers.get('idempotent-replayed')).to.equal('true');
    expect(later.body).to.deep.equal(first.body);
    const batches = await running().db('bulk_payouts').where({ business_id: b.id, idempotency_key: key }).count<{ count: string }[]>('* as count');
    expect(Number(batches[0].count)).to.equal(1);
    expectProblem(await sendBulkPayout(b, [items[0]], key), 422, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('takes 1,000 items in one request: those the payout account can pay become payouts, the rest INSUFFICIENT_FUNDS', async () => {
    const { b: biz, customer: receiver } = await payoutBusiness('3.00');
    const res = await sendBulkPayout(biz, Array.from({ length: 1000 }, (_, i) => ({ payout_amount: '1.00', external_reference: `item-${i}`, customer_id: receiver.id })));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ item_count: 1000 });
    expect(res.body.counts).to.include({ PENDING: 3, REJECTED: 997 });
    const report = await get(`/bulk-payouts/${res.body.bulk_payout_id}/report`, { token: biz.token });
    expect(report.body.data).to.have.length(1000);
    expect(report.body.data[999]).to.include({ item_index: 999, failure_code: 'INSUFFICIENT_FUNDS', external_reference: 'item-999' });
    await bulkPayoutSettled(biz, res.body.bulk_payout_id);
    await assertLedgerConsistent(running().db, biz.id);
  });

  it('400 VALIDATION_ERROR without the key, with no items, more than 1,000 or an unknown field', async () => {
    const item = { payout_amount: '1.00', customer_id: customer.id };
    expectValidation(await sendBulkPayout(b, [item], null), '/header/idempotency-key');
    expectValidation(await sendBulkPayout(b, []), '/items');
    expectValidation(await sendBulkPayout(b, Array.from({ length: 1001 }, () => item)), '/items');
    expectValidation(await sendBulkPayout(b, [{ ...item, amount: '1.00' }]), '/items/0/amount');
  });

  it('404 BULK_PAYOUT_NOT_FOUND for an unknown or another business\'s batch, on status, report and CSV', async () => {
    const mine = await sendBulkPayout(b, [{ payout_amount: '1.00', customer_id: customer.id }]);
    const other = await newBusiness();
    for (const suffix of ['', '/report', '/report.csv']) {
      expectProblem(await get(`/bulk-payouts/${randomUUID()}${suffix}`, { token: b.token }), 404, 'BULK_PAYOUT_NOT_FOUND');
      expectProblem(await get(`/bulk-payouts/${mine.body.bulk_payout_id}${suffix}`, { token: other.token }), 404, 'BULK_PAYOUT_NOT_FOUND');
    }
    await bulkPayoutSettled(b, mine.body.bulk_payout_id);
  });
});
