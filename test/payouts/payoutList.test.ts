/**
 * listCustomerPayouts (GET /payouts/): the business's payouts as getPayoutStatus shows them,
 * newest first, paged by cursor, filtered by status, creation time and external reference.
 * listBulkPayouts (GET /bulk-payouts): the business's batches as getBulkPayoutStatus shows
 * them, newest first, by creation time. Another business's never show; a bad filter or
 * cursor is 400 and nothing else.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { expectProblem, expectValidation } from '../support/assertions.js';
import { get } from '../support/client.js';
import { newBusiness, type TestBusiness } from '../support/fixtures.js';
import { bulkPayoutSettled, createPayout, payoutBusinessHooks, payoutOf, payoutReaching, sendBulkPayout } from '../support/payouts.js';

describe('Payouts: listCustomerPayouts', function () {
  this.timeout(60_000);
  let b: TestBusiness;
  let customer: any;
  const ids: string[] = [];
  const reference = `list-${randomUUID()}`;
  let between: string;

  payoutBusinessHooks((made) => ({ b, customer } = made));

  before(async () => {
    for (let i = 0; i < 3; i++) {
      const created = await createPayout(b, { payout_amount: `${i + 1}.00`, external_reference: i === 1 ? reference : `other-${i}-${randomUUID()}`, customer_id: customer.id });
      ids.unshift(created.payout_id); // newest first
      if (i === 0) {
        await new Promise((r) => setTimeout(r, 20));
        between = new Date().toISOString();
      }
    }
    for (const id of ids) await payoutReaching(b, id, 'COMPLETED');
  });

  it('lists the payouts newest first, each as getPayoutStatus shows it, paged by cursor', async () => {
    const first = await get('/payouts/?limit=2', { token: b.token });
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    expect(first.body.data.map((p: { payout_id: string }) => p.payout_id)).to.deep.equal(ids.slice(0, 2));
    expect(first.body.data[0]).to.deep.equal(await payoutOf(b, ids[0]));
    expect(first.body.has_more).to.equal(true);
    const second = await get(`/payouts/?limit=2&cursor=${first.body.next_cursor}`, { token: b.token });
    expect(second.body.data.map((p: { payout_id: string }) => p.payout_id)).to.deep.equal(ids.slice(2));
    expect(second.body).to.include({ has_more: false, next_cursor: null });
  });

  it('filters by status, creation time and external reference', async () => {
    const completed = await get('/payouts/?status=COMPLETED', { token: b.token });
    expect(completed.body.data.map((p: { payout_id: string }) => p.payout_id)).to.deep.equal(ids);
    expect((await get('/payouts/?status=FAILED', { token: b.token })).body.data).to.deep.equal([]);
    const later = await get(`/payouts/?created_from=${encodeURIComponent(between)}`, { token: b.token });
    expect(later.body.data.map((p: { payout_id: string }) => p.payout_id)).to.deep.equal(ids.slice(0, 2));
    const earlier = await get(`/payouts/?created_to=${encodeURIComponent(between)}`, { token: b.token });
    expect(earlier.body.data.map((p: { payout_id: string }) => p.payout_id)).to.deep.equal(ids.slice(2));
    const byReference = await get(`/payouts/?external_reference=${reference}`, { token: b.token });
    expect(byReference.body.data.map((p: { payout_id: string }) => p.payout_id)).to.deep.equal([ids[1]]);
  });

  it("shows no other business's payouts", async () => {
    const other = await newBusiness();
    const res = await get('/payouts/', { token: other.token });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ data: [], has_more: false, next_cursor: null });
  });

  it('answers 400 VALIDATION_ERROR for an unknown status or a bad limit, and 400 INVALID_CURSOR for a cursor it did not issue', async () => {
    expectValidation(await get('/payouts/?status=DONE', { token: b.token }), '/query/status');
    expectValidation(await get('/payouts/?limit=0', { token: b.token }), '/query/limit');
    expectProblem(await get('/payouts/?cursor=bm90LWEtY3Vyc29y', { token: b.token }), 400, 'INVALID_CURSOR');
  });
});

describe('Payouts: listBulkPayouts', function () {
  this.timeout(60_000);
  let b: TestBusiness;
  let customer: any;
  const ids: string[] = [];
  let between: string;

  payoutBusinessHooks((made) => ({ b, customer } = made));

  before(async () => {
    for (let i = 0; i < 3; i++) {
      const res = await sendBulkPayout(b, [{ payout_amount: '1.00', customer_id: customer.id }, { payout_amount: '0.00', customer_id: customer.id }]);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      ids.unshift(res.body.bulk_payout_id);
      if (i === 0) {
        await new Promise((r) => setTimeout(r, 20));
        between = new Date().toISOString();
      }
    }
    for (const id of ids) await bulkPayoutSettled(b, id);
  });

  it('lists the batches newest first with their counts as getBulkPayoutStatus shows them, paged by cursor', async () => {
    const first = await get('/bulk-payouts?limit=2', { token: b.token });
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    expect(first.body.data.map((x: { bulk_payout_id: string }) => x.bulk_payout_id)).to.deep.equal(ids.slice(0, 2));
    expect(first.body.data[0]).to.deep.equal((await get(`/bulk-payouts/${ids[0]}`, { token: b.token })).body);
    expect(first.body.data[0].counts).to.deep.equal({ PENDING: 0, PROCESSING: 0, COMPLETED: 1, FAILED: 0, REJECTED: 1 });
    const second = await get(`/bulk-payouts?limit=2&cursor=${first.body.next_cursor}`, { token: b.token });
    expect(second.body.data.map((x: { bulk_payout_id: string }) => x.bulk_payout_id)).to.deep.equal(ids.slice(2));
    expect(second.body).to.include({ has_more: false, next_cursor: null });
  });

  it('filters by creation time and shows no other business\'s batches', async () => {
    const later = await get(`/bulk-payouts?created_from=${encodeURIComponent(between)}`, { token: b.token });
    expect(later.body.data.map((x: { bulk_payout_id: string }) => x.bulk_payout_id)).to.deep.equal(ids.slice(0, 2));
    const earlier = await get(`/bulk-payouts?created_to=${encodeURIComponent(between)}`, { token: b.token });
    expect(earlier.body.data.map((x: { bulk_payout_id: string }) => x.bulk_payout_id)).to.deep.equal(ids.slice(2));
    const other = await newBusiness();
    expect((await get('/bulk-payouts', { token: other.token })).body).to.deep.equal({ data: [], has_more: false, next_cursor: null });
  });

  it('answers 400 VALIDATION_ERROR for a bad limit or time, and 400 INVALID_CURSOR for a cursor it did not issue', async () => {
    expectValidation(await get('/bulk-payouts?limit=101', { token: b.token }), '/query/limit');
    expectValidation(await get('/bulk-payouts?created_from=yesterday', { token: b.token }), '/query/created_from');
    expectProblem(await get('/bulk-payouts?cursor=bm90LWEtY3Vyc29y', { token: b.token }), 400, 'INVALID_CURSOR');
  });
});
