/**
 * Payouts to customers (seed E4): createPayout's success by each receiver
 * identifier and every documented error, getPayoutStatus, the payout account top-up.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { requestHash } from '../../src/kernel/idempotency/idempotency.js';
import { expectProblem, expectValidation } from '../support/assertions.js';
import { businessNodeTransaction } from '../support/businessNode.js';
import { get, post } from '../support/client.js';
import { activeCustomer, startSession } from '../support/customers.js';
import { newBusiness, type TestBusiness } from '../support/fixtures.js';
import { assertLedgerConsistent } from '../support/ledgerInvariants.js';
import { createPayout, payoutBusinessHooks, payoutEventCodes, payoutOf, payoutReaching, sendPayout, topupPayoutAccount } from '../support/payouts.js';
import { running } from '../support/service.js';

describe('Payouts: createPayout (E4) and getPayoutStatus', function () {
  this.timeout(60_000);
  let b: TestBusiness;
  let customer: any;

  payoutBusinessHooks((made) => ({ b, customer } = made));

  it('pays a customer by mobile number: PENDING, then PROCESSING, then COMPLETED with the money on the wallet', async () => {
    const created = await createPayout(b, {
      payout_amount: '100.5',
      payout_purpose: 'Cashback',
      external_reference: `ref-${randomUUID()}`,
      mobileNumber: customer.mobile_number,
    });
    expect(created.transaction_id).to.match(/^TXN[0-9]{12}$/);
    const done = await payoutReaching(b, created.payout_id, 'COMPLETED');
    expect(done).to.include({ payout_amount: '100.50', customer_id: customer.id, wallet_account_number: customer.wallet_account_number, failure_code: null });
    expect(done.outcome_transaction_id).to.match(/^TXN/);
    const wallet = await get(`/cl/v1/wallets/${customer.wallet_id}/balance`, { token: b.token });
    expect(wallet.body.balance).to.equal('100.50');
    expect(await payoutEventCodes(b, created.payout_id)).to.deep.equal(['payout.pending', 'payout.processing', 'payout.completed']);
  });

  it('pays by customer_id and by walletAccountNumber', async () => {
    const one = await createPayout(b, { payout_amount: '1.00', customer_id: customer.id });
    const two = await createPayout(b, { payout_amount: '2.00', walletAccountNumber: customer.wallet_account_number });
    for (const p of [one, two]) expect((await payoutOf(b, p.payout_id)).customer_id).to.equal(customer.id);
  });

  it('answers a replay with the same payout and Idempotent-Replayed; the same key with another body is 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const key = randomUUID();
    const body = { payout_amount: '3.00', customer_id: customer.id };
    const first = await sendPayout(b, body, key);
    const again = await sendPayout(b, body, key);
    expect(again.status).to.equal(200);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    expectProblem(await sendPayout(b, { ...body, payout_amount: '4.00' }, key), 422, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('400 VALIDATION_ERROR without the idempotency-key header, with no receiver or two, or a zero amount', async () => {
    expectValidation(await sendPayout(b, { payout_amount: '1.00', customer_id: customer.id }, null), '/header/idempotency-key');
    expectValidation(await sendPayout(b, { payout_amount: '1.00' }), '/customer_id');
    expectValidation(await sendPayout(b, { payout_amount: '1.00', customer_id: customer.id, mobileNumber: customer.mobile_number }), '/customer_id');
    expectValidation(await sendPayout(b, { payout_amount: '0.00', customer_id: customer.id }), '/payout_amount');
    expectValidation(await sendPayout(b, { payout_amount: '1.001', customer_id: customer.id }), '/payout_amount');
  });

  it('404 CUSTOMER_NOT_FOUND for an unknown receiver, by each identifier', async () => {
    expectProblem(await sendPayout(b, { payout_amount: '1.00', customer_id: randomUUID() }), 404, 'CUSTOMER_NOT_FOUND');
    expectProblem(await sendPayout(b, { payout_amount: '1.00', walletAccountNumber: '900000000019' }), 404, 'CUSTOMER_NOT_FOUND');
    expectProblem(await sendPayout(b, { payout_amount: '1.00', mobileNumber: '966500000001' }), 404, 'CUSTOMER_NOT_FOUND');
    const other = await newBusiness();
    expectProblem(await sendPayout(other, { payout_amount: '1.00', customer_id: customer.id }), 404, 'CUSTOMER_NOT_FOUND');
  });

  it('409 CUSTOMER_NOT_ACTIVE for a customer still onboarding; nothing moves', async () => {
    const session = await startSession(b);
    const before = await get('/testhelpers/outbox-events?code=payout.pending&limit=100', { token: b.token });
    expectProblem(await sendPayout(b, { payout_amount: '1.00', customer_id: session.customer_id }), 409, 'CUSTOMER_NOT_ACTIVE');
    const after = await get('/testhelpers/outbox-events?code=payout.pending&limit=100', { token: b.token });
    expect(after.body.data.length).to.equal(before.body.data.length);
  });

  it('409 IDEMPOTENCY_KEY_IN_USE while the same request runs', async () => {
    const key = randomUUID();
    const body = { payout_amount: '5.00', customer_id: customer.id };
    // What the first request holds while it runs (src/kernel/sql/idempotency_lock.sql), where it holds it.
    const trx = await businessNodeTransaction(running().db, b.id);
    try {
      await trx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${b.id}/${key}/${requestHash('createPayout', {}, body)}`]);
      const res = await sendPayout(b, body, key);
      expectProblem(res, 409, 'IDEMPOTENCY_KEY_IN_USE');
      expect(res.headers.get('retry-after')).to.equal('1');
    } finally {
      await trx.end();
    }
  });

  it('422 INSUFFICIENT_FUNDS beyond the payout account balance', async () => {
    const poor = await newBusiness();
    const receiver = await activeCustomer(poor);
    await topupPayoutAccount(poor, '10.00');
    expectProblem(await sendPayout(poor, { payout_amount: '10.01', customer_id: receiver.id }), 422, 'INSUFFICIENT_FUNDS');
    await createPayout(poor, { payout_amount: '10.00', customer_id: receiver.id });
    await assertLedgerConsistent(running().db, poor.id);
  });

  it('fifty concurrent requests with one key make one payout', async () => {
    const key = randomUUID();
    const body = { payout_amount: '7.00', customer_id: customer.id };
    const answers = await Promise.all(Array.from({ length: 50 }, () => sendPayout(b, body, key)));
    const ok = answers.filter((r) => r.status === 200);
    for (const r of answers.filter((a) => a.status !== 200)) expectProblem(r, 409, 'IDEMPOTENCY_KEY_IN_USE');
    expect(ok.length).to.be.greaterThan(0);
    expect(new Set(ok.map((r) => r.body.payout_id)).size).to.equal(1);
    const rows = await running().db('payouts').where({ business_id: b.id, amount: '7.00' }).count<{ count: string }[]>('* as count');
    expect(Number(rows[0].count)).to.equal(1);
  });

  it('getPayoutStatus: 404 PAYOUT_NOT_FOUND for an unknown or another business\'s payout', async () => {
    expectProblem(await get(`/payouts/${randomUUID()}`, { token: b.token }), 404, 'PAYOUT_NOT_FOUND');
    const mine = await createPayout(b, { payout_amount: '1.00', customer_id: customer.id });
    const other = await newBusiness();
    expectProblem(await get(`/payouts/${mine.payout_id}`, { token: other.token }), 404, 'PAYOUT_NOT_FOUND');
  });

  it('tops up the payout account (prefix 2); 422 BALANCE_LIMIT_EXCEEDED past the limit', async () => {
    const rich = await newBusiness();
    const top = await topupPayoutAccount(rich, '999999999999999.99');
    expect(top.account_number).to.match(/^2[0-9]{11}$/);
    expect(top.balance).to.equal('999999999999999.99');
    expectProblem(await post('/testhelpers/payout-account/topups', { amount: '0.01' }, { token: rich.token }), 422, 'BALANCE_LIMIT_EXCEEDED');
    await assertLedgerConsistent(running().db, rich.id);
  });
});
