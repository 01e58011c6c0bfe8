/**
 * getPayoutSummary (GET /payout-summary): the payouts a business created in [from, to), counted
 * and summed per status as they are now and in all, in its currency; a period without payouts
 * is all zeros; another business's payouts never count; `to` not after `from`, a period past 32
 * days or a missing bound is 400; a key without payouts:read is 403. Its statement reads one
 * range of an index of the business's payouts by creation time, never the whole table.
 */
import { expect } from 'chai';
import { expectProblem } from '../support/assertions.js';
import { get, post } from '../support/client.js';
import { newBusiness, tokenFor, type TestBusiness } from '../support/fixtures.js';
import { createPayout, payoutBusinessHooks, payoutReaching } from '../support/payouts.js';
import { nodes, plansOf } from '../support/plans.js';
import { running } from '../support/service.js';
import { getPayoutSummary } from '../../src/payouts/index.js';

const summary = (b: TestBusiness, from: string, to: string) => get(`/payout-summary?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, { token: b.token });
const zero = { count: 0, amount: '0.00' };

describe('Payouts: getPayoutSummary', function () {
  this.timeout(240_000);
  let b: TestBusiness;
  let customer: any;
  let from: string;
  let to: string;

  payoutBusinessHooks((made) => ({ b, customer } = made));

  before(async () => {
    from = new Date(Date.now() - 1_000).toISOString();
    // The sandbox rail: .13 fails, .98 stays PENDING, .99 stays PROCESSING, any other completes.
    const made = [];
    for (const amount of ['10.00', '20.50', '5.13', '1.98', '2.99']) made.push(await createPayout(b, { payout_amount: amount, customer_id: customer.id }));
    await payoutReaching(b, made[0].payout_id, 'COMPLETED', 90_000);
    await payoutReaching(b, made[1].payout_id, 'COMPLETED', 90_000);
    await payoutReaching(b, made[2].payout_id, 'FAILED', 90_000);
    await payoutReaching(b, made[4].payout_id, 'PROCESSING', 90_000);
    to = new Date(Date.now() + 1_000).toISOString();
  });

  it('counts and sums the period’s payouts per status and in all, in the business’s currency', async () => {
    const res = await summary(b, from, to);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal({
      from,
      to,
      currency: 'SAR',
      total: { count: 5, amount: '40.60' },
      by_status: {
        PENDING: { count: 1, amount: '1.98' },
        PROCESSING: { count: 1, amount: '2.99' },
        COMPLETED: { count: 2, amount: '30.50' },
        FAILED: { count: 1, amount: '5.13' },
      },
    });
  });

  it('counts nothing outside the period, nor another business’s payouts', async () => {
    const before = await summary(b, new Date(Date.parse(from) - 86_400_000).toISOString(), from);
    expect(before.body).to.deep.include({ total: zero, by_status: { PENDING: zero, PROCESSING: zero, COMPLETED: zero, FAILED: zero } });
    const other = await newBusiness();
    expect((await summary(other, from, to)).body.total).to.deep.equal(zero);
  });

  it('answers 400 to a period that ends before it starts, lasts past 32 days or lacks a bound', async () => {
    expectProblem(await summary(b, to, from), 400, 'VALIDATION_ERROR');
    expectProblem(await summary(b, from, from), 400, 'VALIDATION_ERROR');
    expectProblem(await summary(b, new Date(Date.parse(to) - 33 * 86_400_000).toISOString(), to), 400, 'VALIDATION_ERROR');
    expectProblem(await get(`/payout-summary?from=${encodeURIComponent(from)}`, { token: b.token }), 400, 'VALIDATION_ERROR');
    expectProblem(await summary(b, 'today', to), 400, 'VALIDATION_ERROR');
  });

  it('answers 403 to a key without payouts:read', async () => {
    const created = await post('/api-keys', { name: 'Wallet reader', permissions: ['wallets:read'] }, { token: b.token });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const reader = { ...b, token: await tokenFor(created.body.client_id, created.body.client_secret) };
    expectProblem(await summary(reader, from, to), 403, 'FORBIDDEN');
  });

  it('reads one index range of the business’s payouts by creation time', async function () {
    // On Citus the coordinator's plan is a routed task: the shard's own plan is not in it.
    if (process.env.CITUS_SUITE) this.skip();
    const plans = await plansOf(running().db, 'payouts', (db) => getPayoutSummary(db, b.id, { from, to }), ['enable_seqscan', 'enable_bitmapscan', 'enable_sort']);
    expect(plans).to.have.length(1);
    const scans = nodes(plans[0]).filter((n) => n['Relation Name'] === 'payouts');
    expect(scans.map((n) => n['Node Type'])).to.deep.equal(['Index Scan']);
    expect(scans[0]['Index Name']).to.equal('payouts_business_id_created_at_id_index');
    expect(scans[0]['Index Cond']).to.include('business_id').and.to.include('created_at');
  });
});
