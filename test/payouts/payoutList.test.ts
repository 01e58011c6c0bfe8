/**
 * listCustomerPayouts (GET /payouts/): the business's payouts as getPayoutStatus shows them,
 * newest first, paged by cursor, filtered by status, creation time and external reference;
 * another business's payouts never show; a bad filter or cursor is 400 and nothing else.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { expectProblem, expectValidation } from '../support/assertions.js';
import { get } from '../support/client.js';
import { newBusiness, type TestBusiness } from '../support/fixtures.js';
import { createPayout, payoutBusinessHooks, payoutOf, payoutReaching } from '../support/payouts.js';

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
