/**
 * Payout processing across a restart (issue 8): payouts created on one instance,
 * which is stopped while their jobs are queued or running, are finished by the
 * instance started next, each exactly once (one completion transaction, one event
 * per state), and the ledger holds. On a database of its own, so that only the
 * instances started here process its jobs.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { RunningService } from '../src/server.js';
import { get, post } from './support/client.js';
import { onboardThrough } from './support/payouts.js';
import { running, startExtraService } from './support/service.js';

const PAYOUTS = 8;

describe('payout processing across a restart', function () {
  this.timeout(180_000);
  const database = `wallet_payouts_${randomUUID().slice(0, 8)}`;
  const services: RunningService[] = [];

  before(() => running().db.raw(`CREATE DATABASE ${database}`));
  after(async () => {
    for (const s of services) await s.close().catch(() => undefined);
    await running().db.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  it('a payout whose instance stops is finished by the next one, exactly once', async () => {
    const first = await startExtraService({ payoutProcessingMs: 1_500 }, database);
    services.push(first);
    const login = await post('/auth/token', { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' }, { baseUrl: first.url });
    const token = login.body.access_token;
    const customer = await onboardThrough(first.url, token);
    expect((await post('/testhelpers/payout-account/topups', { amount: '100.00' }, { token, baseUrl: first.url })).status).to.equal(201);
    const ids: string[] = [];
    for (let i = 0; i < PAYOUTS; i++) {
      const res = await post('/payouts/', { payout_amount: '1.00', payout_purpose: 'Cashback', external_reference: `restart-${i}`, mobileNumber: customer.mobile }, {
        token,
        baseUrl: first.url,
        headers: { 'idempotency-key': randomUUID() },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      ids.push(res.body.payout_id);
    }
    // Stop while the payouts wait to be settled (1.5 s after they were submitted).
    const unsettled = await first.db('payouts').whereIn('id', ids).whereNot({ status: 'COMPLETED' }).count<{ count: string }[]>('* as count');
    expect(Number(unsettled[0].count), 'payouts still in flight when the instance stops').to.be.above(0);
    await first.close();
    services.splice(services.indexOf(first), 1);

    const second = await startExtraService({ payoutProcessingMs: 1_500 }, database);
    services.push(second);
    const deadline = Date.now() + 120_000;
    let statuses: string[] = [];
    while (Date.now() < deadline) {
      statuses = await Promise.all(ids.map(async (id) => (await get(`/payouts/${id}`, { token, baseUrl: second.url })).body.status));
      if (statuses.every((s) => s === 'COMPLETED')) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(statuses).to.deep.equal(ids.map(() => 'COMPLETED'));

    // Exactly once: one completion transaction per payout, one event per state, money in place.
    const completions = await second.db('transactions').where({ type: 'CUSTOMER_PAYOUT_COMPLETION' }).count<{ count: string }[]>('* as count');
    expect(Number(completions[0].count)).to.equal(PAYOUTS);
    const events = await second.db('outbox_events').whereIn('code', ['payout.pending', 'payout.processing', 'payout.completed']).select('code', 'data');
    for (const id of ids) {
      const codes = events.filter((e) => (e.data as { payout_id: string }).payout_id === id).map((e) => e.code).sort();
      expect(codes, id).to.deep.equal(['payout.completed', 'payout.pending', 'payout.processing']);
    }
    const wallet = await get(`/cl/v1/wallets/${customer.walletId}/balance`, { token, baseUrl: second.url });
    expect(wallet.body.balance).to.equal(`${PAYOUTS}.00`);
    const sums = await second.db('ledger_entries').sum<{ sum: string }[]>('amount as sum');
    expect(sums[0].sum, 'every transaction balanced').to.equal('0.00');
  });
});
