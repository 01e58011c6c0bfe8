/**
 * Payout processing: the state table PENDING → PROCESSING → COMPLETED |
 * FAILED on the job queue, the sandbox's amount rule, the outcome helper with its
 * errors, and the ledger conserved across every outcome.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { RunningService } from '../../src/server.js';
import { expectProblem, expectValidation } from '../support/assertions.js';
import { get, post } from '../support/client.js';
import { activeCustomer } from '../support/customers.js';
import { newBusiness, type TestBusiness } from '../support/fixtures.js';
import { assertLedgerConsistent } from '../support/ledgerInvariants.js';
import { signatureHeaders } from '../support/operations.js';
import { createPayout, payoutBusinessHooks, payoutEventCodes, payoutOf, payoutReaching, topupPayoutAccount } from '../support/payouts.js';
import { running, startExtraService } from '../support/service.js';

const decide = (b: TestBusiness, id: string, body: Record<string, unknown>) => post(`/testhelpers/payouts/${id}/outcome`, body, { token: b.token });

describe('Payout processing', function () {
  this.timeout(60_000);
  let b: TestBusiness;
  let customer: any;

  payoutBusinessHooks((made) => ({ b, customer } = made));

  it('outside the sandbox both payout helpers are 404 NOT_FOUND', async () => {
    let production: RunningService | undefined;
    try {
      production = await startExtraService({ sandbox: false });
      const opts = { token: b.token, baseUrl: production.url };
      expectProblem(await post('/testhelpers/payout-account/topups', { amount: '1.00' }, opts), 404, 'NOT_FOUND');
      expectProblem(await post(`/testhelpers/payouts/${randomUUID()}/outcome`, { status: 'COMPLETED' }, opts), 404, 'NOT_FOUND');
    } finally {
      await production?.close();
    }
  });

  it('.13 fails with REJECTED_BY_BANK and .14 with TIMEOUT: the money returns to the payout account', async () => {
    const rejected = await createPayout(b, { payout_amount: '10.13', customer_id: customer.id });
    const timedOut = await createPayout(b, { payout_amount: '10.14', customer_id: customer.id });
    expect((await payoutReaching(b, rejected.payout_id, 'FAILED')).failure_code).to.equal('REJECTED_BY_BANK');
    expect((await payoutReaching(b, timedOut.payout_id, 'FAILED')).failure_code).to.equal('TIMEOUT');
    expect(await payoutEventCodes(b, rejected.payout_id)).to.deep.equal(['payout.pending', 'payout.processing', 'payout.failed']);
    const events = await get('/testhelpers/outbox-events?code=payout.failed&limit=10', { token: b.token });
    const failed = events.body.data.find((e: any) => e.data.payout_id === rejected.payout_id);
    expect(failed.data).to.include({ status: 'FAILED', amount: '10.13', failure_code: 'REJECTED_BY_BANK', customer_id: customer.id });
  });

  it('.98 stays PENDING and .99 stays PROCESSING until the helper decides', async () => {
    const waiting = await createPayout(b, { payout_amount: '20.98', customer_id: customer.id });
    const submitted = await createPayout(b, { payout_amount: '20.99', customer_id: customer.id });
    await payoutReaching(b, submitted.payout_id, 'PROCESSING');
    await new Promise((r) => setTimeout(r, 2_000)); // past the processing time (1 s in tests)
    expect((await payoutOf(b, waiting.payout_id)).status).to.equal('PENDING');
    expect((await payoutOf(b, submitted.payout_id)).status).to.equal('PROCESSING');

    const completed = await decide(b, waiting.payout_id, { status: 'COMPLETED' });
    expect(completed.status, JSON.stringify(completed.body)).to.equal(200);
    expect(completed.body).to.include({ status: 'COMPLETED', failure_code: null });
    expect(await payoutEventCodes(b, waiting.payout_id)).to.deep.equal(['payout.pending', 'payout.processing', 'payout.completed']);

    const failed = await decide(b, submitted.payout_id, { status: 'FAILED', failure_code: 'TIMEOUT' });
    expect(failed.body).to.include({ status: 'FAILED', failure_code: 'TIMEOUT' });
  });

  it("the rail's signed callback decides a .99 payout in the sandbox too; a .98 one, never submitted, is 409", async () => {
    const waiting = await createPayout(b, { payout_amount: '21.98', customer_id: customer.id });
    const submitted = await createPayout(b, { payout_amount: '21.99', customer_id: customer.id });
    await payoutReaching(b, submitted.payout_id, 'PROCESSING');
    const rail = (payoutId: string) => {
      const body = { event_id: `rail_${randomUUID().replaceAll('-', '')}`, payout_id: payoutId, outcome: 'COMPLETED', occurred_at: new Date().toISOString() };
      return post('/callbacks/payout-rail', body, { headers: signatureHeaders({ signedBy: 'PAYOUT_RAIL' }, body) });
    };
    expect((await rail(submitted.payout_id)).body.result).to.equal('APPLIED');
    expect(await payoutEventCodes(b, submitted.payout_id)).to.deep.equal(['payout.pending', 'payout.processing', 'payout.completed']);
    expectProblem(await rail(waiting.payout_id), 409, 'PAYOUT_STATUS_NOT_ALLOWED');
    expect((await payoutOf(b, waiting.payout_id)).status).to.equal('PENDING');
  });

  it('409 PAYOUT_STATUS_NOT_ALLOWED for a decided payout; 404 PAYOUT_NOT_FOUND; 400 for a failure code with COMPLETED', async () => {
    const payout = await createPayout(b, { payout_amount: '30.00', customer_id: customer.id });
    expect((await decide(b, payout.payout_id, { status: 'FAILED' })).body.failure_code).to.equal('REJECTED_BY_BANK');
    expectProblem(await decide(b, payout.payout_id, { status: 'COMPLETED' }), 409, 'PAYOUT_STATUS_NOT_ALLOWED');
    expectProblem(await decide(b, randomUUID(), { status: 'COMPLETED' }), 404, 'PAYOUT_NOT_FOUND');
    expectValidation(await decide(b, payout.payout_id, { status: 'COMPLETED', failure_code: 'TIMEOUT' }), '/failure_code');
    // The automatic rule leaves a decided payout as it is.
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await payoutOf(b, payout.payout_id)).status).to.equal('FAILED');
  });

  it('a completion for a wallet that is no longer ACTIVE fails with RECEIVER_NOT_ACTIVE', async () => {
    const other = await activeCustomer(b);
    const payout = await createPayout(b, { payout_amount: '40.99', customer_id: other.id });
    await payoutReaching(b, payout.payout_id, 'PROCESSING');
    await running().db('accounts').where({ id: other.wallet_id }).update({ status: 'BLOCKED' });
    const decided = await decide(b, payout.payout_id, { status: 'COMPLETED' });
    expect(decided.body).to.include({ status: 'FAILED', failure_code: 'RECEIVER_NOT_ACTIVE' });
  });

  it('conserves the ledger across every outcome: payout account + in transit + wallets = what was topped up', async () => {
    const b2 = await newBusiness();
    const c2 = await activeCustomer(b2);
    await topupPayoutAccount(b2, '500.00');
    const ids: string[] = [];
    for (const amount of ['11.00', '12.13', '13.14', '14.98', '15.99', '16.50']) ids.push((await createPayout(b2, { payout_amount: amount, customer_id: c2.id })).payout_id);
    await decide(b2, ids[3], { status: 'FAILED', failure_code: 'REJECTED_BY_BANK' });
    await decide(b2, ids[4], { status: 'COMPLETED' });
    await Promise.all([0, 5].map((i) => payoutReaching(b2, ids[i], 'COMPLETED')));
    await Promise.all([1, 2].map((i) => payoutReaching(b2, ids[i], 'FAILED')));
    const balances = await running().db('accounts').where({ business_id: b2.id }).select('kind', 'balance');
    const of = (kind: string) => balances.filter((a) => a.kind === kind).map((a) => a.balance);
    expect(of('IN_TRANSIT')).to.deep.equal(['0.00']);
    expect(of('WALLET')).to.deep.equal(['43.49']); // 11.00 + 15.99 + 16.50
    expect(of('PAYOUT')).to.deep.equal(['456.51']);
    expect(of('SETTLEMENT')).to.deep.equal(['-500.00']);
    await assertLedgerConsistent(running().db, b2.id);
    await assertLedgerConsistent(running().db, b.id);
  });
});
