/**
 * Prometheus metrics at GET /metrics: requests and latency per operationId
 * and status, ledger transactions per type, database pool use, outbox backlog and the
 * age of its oldest event, the background lane's transactions.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { inBackground } from '../../../src/kernel/scheduling/background.js';
import { eventually, expectProblem } from '../../support/assertions.js';
import { get, post } from '../../support/client.js';
import { newBusiness, newWallet, topup } from '../../support/fixtures.js';
import { createPayout, payoutBusiness, payoutReaching, sendBulkPayout } from '../../support/payouts.js';
import { running } from '../../support/service.js';

/** The value of the sample `name{labels}` in an exposition, or undefined. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(labels ? `${name}{${labels}}` : `${name} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** The ledger transactions of every business in the database now, by type. */
async function transactionsByType(): Promise<Record<string, number>> {
  const rows: { type: string; n: number }[] = await running().db('transactions').select('type').count({ n: '*' }).groupBy('type');
  return Object.fromEntries(rows.map((r) => [r.type, Number(r.n)]));
}

describe('metrics', () => {
  it('GET /metrics counts requests, latency, ledger transactions, pool use and the outbox', async () => {
    const b = await newBusiness();
    const before = (await get('/metrics')).body as string;
    const wallet = await newWallet(b.token);
    // One TOPUP, and one topup.complete event in the outbox, which the test then holds
    // (row lock: the relay skips locked events) so that it is still waiting at the scrape.
    const holder = await running().db.transaction();
    let res: Awaited<ReturnType<typeof get>>;
    let topups: string;
    try {
      let held = 0;
      while (held === 0) {
        await topup(b.token, '10.00');
        held = (await holder('outbox_pending').where({ business_id: b.id }).forUpdate().pluck('event_id')).length;
      }
      topups = (await holder('transactions').where({ business_id: b.id, type: 'TOPUP' }).count<{ count: string }[]>('* as count'))[0].count;
      const key = `metrics-${wallet.id}`;
      for (let i = 0; i < 2; i++) {
        expect((await post('/cl/v1/funds', { wallet_id: wallet.id, amount: '1.00' }, { token: b.token, idempotencyKey: key })).status).to.equal(201);
      }
      expect((await get(`/cl/v1/wallets/${wallet.id}`, { token: b.token })).status).to.equal(200);

      res = await get('/metrics');
    } finally {
      await holder.commit();
    }
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    const text = res.body as string;
    const delta = (name: string, labels: string) => (sample(text, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    expect(delta('http_requests_total', 'operation_id="createFund",status="201"')).to.equal(2);
    expect(delta('http_requests_total', 'operation_id="getWallet",status="200"')).to.equal(1);
    expect(delta('http_request_duration_seconds_count', 'operation_id="getWallet",status="200"')).to.equal(1);
    expect(delta('ledger_transactions_total', 'type="FUND"'), 'the replayed fund posted nothing').to.equal(1);
    expect(delta('ledger_transactions_total', 'type="TOPUP"')).to.equal(Number(topups));
    expect(sample(text, 'db_pool_connections', 'pool="api",state="used"')).to.be.at.least(0);
    expect(sample(text, 'db_pool_connections', 'pool="background",state="free"'), "the background lane's own pool").to.be.at.least(0);
    expect(sample(text, 'outbox_backlog_events')).to.be.at.least(1);
    expect(sample(text, 'outbox_oldest_event_age_seconds')).to.be.greaterThan(0);
    expect(sample(text, 'process_resident_memory_bytes')).to.be.greaterThan(0);
  });

  it('GET /metrics counts each ledger transaction once where it is posted: batched, keyed, refused, and by background payout processing', async function () {
    this.timeout(120_000);
    const { b, customer } = await payoutBusiness('100.00');
    const [from, to] = [await newWallet(b.token), await newWallet(b.token)];
    await topup(b.token, '100.00');
    const before = (await get('/metrics')).body as string;
    const postedBefore = await transactionsByType();
    const fund = (walletId: string, amount: string) => post('/cl/v1/funds', { wallet_id: walletId, amount }, { token: b.token });
    expect((await fund(from.id, '50.00')).status).to.equal(201);
    // Sent at once, the funds meet in the business's batches (src/ledger/batching.ts): each is one transaction.
    const funds = await Promise.all(Array.from({ length: 8 }, () => fund(to.id, '1.00')));
    expect(funds.map((r) => r.status)).to.deep.equal(Array(8).fill(201));
    const transfer = (amount: string, idempotencyKey = randomUUID()) =>
      post('/cl/v1/transfers', { source_wallet_id: from.id, destination_wallet_id: to.id, amount }, { token: b.token, idempotencyKey });
    const key = randomUUID();
    const first = await transfer('5.00', key);
    const replayed = await transfer('5.00', key);
    expect([first.status, replayed.status, replayed.headers.get('idempotent-replayed')]).to.deep.equal([201, 201, 'true']);
    expectProblem(await transfer('1000.00'), 422, 'INSUFFICIENT_FUNDS');
    // A payout (posted in its request's transaction) that the sandbox rail completes in the
    // background; a bulk payout of two payouts and one rejected item (one statement).
    const payout = await createPayout(b, { payout_amount: '10.00', customer_id: customer.id });
    const bulk = await sendBulkPayout(b, [
      { payout_amount: '1.00', customer_id: customer.id },
      { payout_amount: '2.00', customer_id: customer.id },
      { payout_amount: '500.00', customer_id: customer.id },
    ]);
    expect(bulk.status, JSON.stringify(bulk.body)).to.equal(200);
    expect(bulk.body.counts).to.include({ PENDING: 2, REJECTED: 1 });
    await payoutReaching(b, payout.payout_id, 'COMPLETED', 60_000);

    await eventually(async () => {
      const text = (await get('/metrics')).body as string;
      const posted = await transactionsByType();
      const counted = (type: string) => (sample(text, 'ledger_transactions_total', `type="${type}"`) ?? 0) - (sample(before, 'ledger_transactions_total', `type="${type}"`) ?? 0);
      expect(counted('FUND'), 'nine funds, eight of them sent at once').to.equal(9);
      expect(counted('TRANSFER'), 'a keyed transfer sent twice, and a refused one').to.equal(1);
      expect(counted('CUSTOMER_PAYOUT'), 'a payout, and the two payouts of a bulk payout').to.equal(3);
      // The background processing of other tests' payouts may post too: what this instance
      // counted is what the database holds more of (all of it is this instance's).
      for (const type of ['CUSTOMER_PAYOUT_COMPLETION', 'CUSTOMER_PAYOUT_RETURN']) {
        expect(counted(type), type).to.equal((posted[type] ?? 0) - (postedBefore[type] ?? 0));
      }
      expect(counted('CUSTOMER_PAYOUT_COMPLETION'), "the payout's completion").to.be.at.least(1);
    }, 30_000);
  });

  it('GET /metrics shows the background lane: work running and work waiting for it', async () => {
    // The test's modules and the service's are one instance each (.mocharc.json), so this
    // is the lane the service configured and its handlers use.
    const { db } = running();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding = inBackground(db, () => held);
    const waiting = inBackground(db, async () => 'ran');
    try {
      const text = (await get('/metrics')).body as string;
      expect(sample(text, 'background_transactions', 'state="running"')).to.equal(1);
      expect(sample(text, 'background_transactions', 'state="waiting"')).to.be.at.least(1);
    } finally {
      release();
    }
    await holding;
    expect(await waiting).to.equal('ran');
    // The service's own background work (webhook attempts of earlier tests) may be queued
    // for the lane at that moment: the lane drains.
    await eventually(async () => {
      const after = (await get('/metrics')).body as string;
      expect(sample(after, 'background_transactions', 'state="waiting"')).to.equal(0);
    }, 10_000);
  });
});
