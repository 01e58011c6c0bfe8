/**
 * Batched posting (src/ledger/batching.ts, src/ledger/sql/ledger_move_batch.sql): movements
 * of one business that arrive while batches are in flight are posted together, one
 * database transaction per batch, and each keeps what it would have had alone.
 *
 * To make one batch for certain, the test holds the business's operational account with a
 * row lock of its own: the first movements to arrive (one per batch slot) wait on it inside
 * PostgreSQL, every later one waits in the batcher, and all of those go as the next batch
 * once the lock is let go. The `ledger_batch_items` histogram in /metrics shows the batch.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import type { Knex } from 'knex';
import { batchedMovements, HOT_BATCHES_IN_FLIGHT as BATCHES_IN_FLIGHT } from '../../src/ledger/batching.js';
import { get, post, request, type ApiResponse } from '../support/client.js';
import { fundedWallet, newBusiness, newWallet, topup, type TestBusiness } from '../support/fixtures.js';
import { assertLedgerConsistent } from '../support/ledgerInvariants.js';
import { killServiceProcess, startServiceProcess } from '../support/property/processes.js';
import { running, testConfig } from '../support/service.js';

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The accounts `where` selects, locked FOR UPDATE in a transaction of the test's own until `release()`. */
async function holdAccounts(db: Knex, where: Record<string, string>): Promise<{ release(): Promise<void> }> {
  const trx = await db.transaction();
  await trx('accounts').where(where).forUpdate().select('id');
  return {
    async release() {
      await trx.commit();
    },
  };
}

const holdOperationalAccount = (db: Knex, businessId: string) => holdAccounts(db, { business_id: businessId, kind: 'OPERATIONAL' });
const holdWallet = (db: Knex, walletId: string) => holdAccounts(db, { id: walletId });

/** `ledger_batch_items` of the instance at `baseUrl`: batches sent and movements in them. */
async function batchCounts(baseUrl?: string): Promise<{ batches: number; items: number }> {
  const text = (await get('/metrics', { baseUrl })).body as string;
  const value = (name: string) => Number(text.split('\n').find((l) => l.startsWith(`${name} `))?.split(' ')[1] ?? 0);
  return { batches: value('ledger_batch_items_count'), items: value('ledger_batch_items_sum') };
}

async function balanceOf(b: TestBusiness, walletId: string): Promise<string> {
  return (await get(`/cl/v1/wallets/${walletId}/balance`, { token: b.token })).body.balance;
}

describe('batched posting', function () {
  this.timeout(120_000);

  it('posts one batch of funds and withdrawals of several wallets in which refused items, replayed and duplicate keys each get their own answer', async () => {
    const b = await newBusiness();
    await topup(b.token, '1000.00');
    const a = await fundedWallet(b.token, '100.00');
    const c = await newWallet(b.token);
    const suspended = await newWallet(b.token);
    expect((await request('PATCH', `/cl/v1/wallets/${suspended.id}`, { token: b.token, body: { status: 'SUSPENDED' } })).status).to.equal(200);
    const fund = (walletId: string, amount: string, key = randomUUID()) => post('/cl/v1/funds', { wallet_id: walletId, amount }, { token: b.token, idempotencyKey: key });

    // A key used before the batch, to be replayed inside it.
    const earlierKey = randomUUID();
    const earlier = await fund(c.id, '1.00', earlierKey);
    expect(earlier.status).to.equal(201);

    const hold = await holdOperationalAccount(running().db, b.id);
    const before = await batchCounts();
    // One batch slot each: these wait on the lock inside PostgreSQL.
    const blockers = Array.from({ length: BATCHES_IN_FLIGHT }, () => fund(c.id, '2.00'));
    await settle(500);
    const twiceKey = randomUUID();
    const reusedKey = randomUUID();
    const named = {
      funds: Array.from({ length: 10 }, () => fund(a.id, '3.00')),
      transfer: post('/cl/v1/transfers', { source_wallet_id: a.id, destination_wallet_id: c.id, amount: '40.00' }, { token: b.token, idempotencyKey: randomUUID() }),
      withdrawal: post('/cl/v1/withdrawals', { wallet_id: c.id, amount: '1.50' }, { token: b.token, idempotencyKey: randomUUID() }),
      overdrawn: post('/cl/v1/withdrawals', { wallet_id: a.id, amount: '5000.00' }, { token: b.token, idempotencyKey: randomUUID() }),
      unknownWallet: fund(randomUUID(), '1.00'),
      suspendedWallet: fund(suspended.id, '1.00'),
      replayed: fund(c.id, '1.00', earlierKey),
      twice: [fund(a.id, '4.00', twiceKey), fund(a.id, '4.00', twiceKey)],
      reused: [fund(a.id, '6.00', reusedKey), fund(c.id, '7.00', reusedKey)],
    };
    await settle(1_000);
    await hold.release();

    const blocked = await Promise.all(blockers);
    expect(blocked.map((r) => r.status)).to.deep.equal(blockers.map(() => 201));
    const funds = await Promise.all(named.funds);
    expect(funds.map((r) => r.status)).to.deep.equal(named.funds.map(() => 201));
    expect(new Set(funds.map((r) => r.body.id)).size, 'one transaction per fund').to.equal(10);
    const transfer = await named.transfer;
    expect(transfer.status, JSON.stringify(transfer.body)).to.equal(201);
    expect((await named.withdrawal).status).to.equal(201);
    const overdrawn = await named.overdrawn;
    expect([overdrawn.status, overdrawn.body.code]).to.deep.equal([422, 'INSUFFICIENT_FUNDS']);
    const unknown = await named.unknownWallet;
    expect([unknown.status, unknown.body.code]).to.deep.equal([404, 'WALLET_NOT_FOUND']);
    const suspendedAnswer = await named.suspendedWallet;
    expect([suspendedAnswer.status, suspendedAnswer.body.code]).to.deep.equal([422, 'WALLET_NOT_ACTIVE']);
    const replayed = await named.replayed;
    expect([replayed.status, replayed.headers.get('idempotent-replayed'), replayed.body.id]).to.deep.equal([201, 'true', earlier.body.id]);
    const twice = await Promise.all(named.twice);
    expect(twice.map((r) => r.status)).to.deep.equal([201, 201]);
    expect(twice[0].body.id, 'a key sent twice in one batch posts once').to.equal(twice[1].body.id);
    expect(twice.map((r) => r.headers.get('idempotent-replayed') === 'true').sort()).to.deep.equal([false, true]);
    const reused = await Promise.all(named.reused);
    const statuses = reused.map((r: ApiResponse) => `${r.status} ${r.body.code ?? ''}`.trim()).sort();
    expect(statuses, 'the same key with another body').to.deep.equal(['201', '422 IDEMPOTENCY_KEY_REUSED']);

    const after = await batchCounts();
    // The transfer locks no business account: it is posted at once (alone, when transfers are batched at all).
    const transfers = (await batchedMovements(running().db)).has('TRANSFER') ? 1 : 0;
    const queued = 10 + 1 + 1 + 1 + 1 + 1 + 2 + 2;
    expect(after.batches - before.batches, 'the blockers alone, then one batch of everything that queued').to.equal(BATCHES_IN_FLIGHT + transfers + 1);
    expect(after.items - before.items).to.equal(BATCHES_IN_FLIGHT + transfers + queued);

    // a: 100 + 10 × 3 + 4 − 40 (+ 6 when the reused key's fund to a won); c: 1 + 2 × blockers + 40 − 1.50 (+ 7 otherwise).
    const reusedToA = reused[0].status === 201;
    expect(await balanceOf(b, a.id)).to.equal(new Decimal(100 + 30 + 4 - 40 + (reusedToA ? 6 : 0)).toFixed(2));
    expect(await balanceOf(b, c.id)).to.equal(new Decimal(1 + 2 * BATCHES_IN_FLIGHT + 40 - 1.5 + (reusedToA ? 0 : 7)).toFixed(2));
    expect(await balanceOf(b, suspended.id)).to.equal('0.00');
    await assertLedgerConsistent(running().db, b.id);
  });

  it('posts transfers in batches holding disjoint wallets: one naming a wallet in flight waits for the next batch, in order, and the others do not wait', async () => {
    const b = await newBusiness();
    await topup(b.token, '1000.00');
    const [a, d] = [await fundedWallet(b.token, '100.00'), await fundedWallet(b.token, '100.00')];
    const [w, c, e, f] = [await newWallet(b.token), await newWallet(b.token), await newWallet(b.token), await newWallet(b.token)];
    const transfer = (from: { id: string }, to: { id: string }, amount: string) =>
      post('/cl/v1/transfers', { source_wallet_id: from.id, destination_wallet_id: to.id, amount }, { token: b.token, idempotencyKey: randomUUID() });
    const answered = new Set<string>();
    const track = (name: string, r: Promise<ApiResponse>) => r.then((res) => (answered.add(name), res));

    const hold = await holdWallet(running().db, w.id);
    const before = await batchCounts();
    // Sent alone: its batch is in flight, waiting inside PostgreSQL on w, holding a and w in the lane.
    const first = track('first', transfer(a, w, '10.00'));
    await settle(300);
    // w and a are held by the batch in flight; c and e are named by a transfer left waiting before them.
    const waiting = {
      fromW: track('fromW', transfer(w, c, '5.00')),
      fromC: track('fromC', transfer(c, e, '1.00')),
      overdrawn: track('overdrawn', transfer(a, c, '1000.00')),
    };
    // Names no wallet of those: posted at once, while w is still held.
    const free = await transfer(d, f, '20.00');
    expect(free.status, JSON.stringify(free.body)).to.equal(201);
    await settle(300);
    expect([...answered], 'nothing else answered while w is held').to.deep.equal([]);
    await hold.release();

    expect((await first).status).to.equal(201);
    // w → c needs the 10.00 the first transfer brought to w, c → e the 5.00 w → c brought to c: their order kept.
    expect((await waiting.fromW).status).to.equal(201);
    expect((await waiting.fromC).status).to.equal(201);
    const overdrawn = await waiting.overdrawn;
    expect([overdrawn.status, overdrawn.body.code]).to.deep.equal([422, 'INSUFFICIENT_FUNDS']);
    const after = await batchCounts();
    expect([after.batches - before.batches, after.items - before.items], 'the first alone, the free one alone, then one batch of the three that waited').to.deep.equal([3, 5]);
    const balances = await Promise.all([a, w, c, d, e, f].map((x) => balanceOf(b, x.id)));
    expect(balances).to.deep.equal(['90.00', '5.00', '4.00', '80.00', '1.00', '20.00']);
    await assertLedgerConsistent(running().db, b.id);
  });

  it('a batch interrupted by SIGKILL of its instance is posted whole or not at all, and every client retrying its key gets one transaction', async () => {
    const b = await newBusiness();
    await topup(b.token, '1000.00');
    const wallets = [await newWallet(b.token), await newWallet(b.token), await newWallet(b.token)];
    // The keys of the suite's instance, so that its tokens are good on this one too.
    const config = testConfig();
    const victim = await startServiceProcess(running().databaseUrl, 90_000, {
      JWT_SECRET: config.jwtSecret!,
      OTP_HASH_KEY: config.otpHashKey!,
      IDENTITY_DATA_KEY: config.identityDataKey!,
      CARD_DATA_KEY: config.cardDataKey!,
      CARD_FINGERPRINT_KEY: config.cardFingerprintKey!,
      WEBHOOK_SECRET_KEY: config.webhookSecretKey!,
      IDEMPOTENCY_REPLAY_KEY: config.idempotencyReplayKey!,
      TOTP_SECRET_KEY: config.totpSecretKey!,
    });
    try {
      // The first movements (one per batch slot) wait on the operational account, the rest
      // queue behind them; then a wallet of the batch is held instead, so that the batch is
      // in flight, inside PostgreSQL, when its instance is killed.
      const hold = await holdOperationalAccount(running().db, b.id);
      const keys = Array.from({ length: 40 }, () => randomUUID());
      const walletOf = (i: number) => (i < BATCHES_IN_FLIGHT ? wallets[0] : wallets[1 + (i % 2)]);
      const body = (i: number) => JSON.stringify({ wallet_id: walletOf(i).id, amount: '1.00' });
      const send = (i: number) =>
        fetch(`${victim.url}/cl/v1/funds`, {
          method: 'POST',
          headers: { authorization: `Bearer ${b.token}`, 'content-type': 'application/json', 'idempotency-key': keys[i] },
          body: body(i),
        }).then((r) => r.status, () => 'no answer');
      const first = keys.slice(0, BATCHES_IN_FLIGHT).map((_, i) => send(i));
      await settle(500);
      const rest = keys.slice(BATCHES_IN_FLIGHT).map((_, i) => send(BATCHES_IN_FLIGHT + i));
      await settle(1_000);
      const wallet = await running().db.transaction();
      await wallet.raw('SELECT 1 FROM accounts WHERE id = ? FOR UPDATE', [wallets[1].id]);
      await hold.release();
      expect(await Promise.all(first), 'the first movements, answered').to.deep.equal(first.map(() => 201));
      await settle(500);
      const waiting = await running().db.raw("SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%ledger_move_batch%' AND wait_event_type = 'Lock'");
      expect(waiting.rows[0].n, 'the batch waits inside PostgreSQL').to.equal(1);
      await killServiceProcess(victim);
      const answers = await Promise.all(rest);
      expect(answers.every((a) => a === 'no answer'), `answers from a killed instance: ${answers}`).to.equal(true);
      await wallet.commit();
      await settle(500); // the killed instance's backend finishes what it was running

      const db = running().db;
      const posted = await db('idempotency_keys').whereIn('key', keys).count<{ count: string }[]>('* as count');
      const n = Number(posted[0].count);
      const whole = n === BATCHES_IN_FLIGHT || n === keys.length;
      console.log(`      ${n} of ${keys.length} movements posted by the killed instance before their clients retried`);
      expect(whole, `${n} of ${keys.length} posted: a batch is one transaction`).to.equal(true);

      // Each client retries with its key on a live instance: one transaction per key.
      const retried = await Promise.all(keys.map((key, i) => post('/cl/v1/funds', JSON.parse(body(i)), { token: b.token, idempotencyKey: key })));
      expect(retried.map((r) => r.status)).to.deep.equal(keys.map(() => 201));
      expect(retried.filter((r) => r.headers.get('idempotent-replayed') === 'true')).to.have.length(n);
      expect((await Promise.all(wallets.map((w) => balanceOf(b, w.id)))).map(Number)).to.deep.equal([BATCHES_IN_FLIGHT, 19, 19]);
      expect(new Set(retried.map((r) => r.body.id)).size).to.equal(keys.length);
      await assertLedgerConsistent(db, b.id);
    } finally {
      await killServiceProcess(victim);
    }
  });
});
