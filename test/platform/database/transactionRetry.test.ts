/**
 * Transactions aborted by a deadlock are run again (src/db/retry.ts): the test makes a
 * real deadlock between its own transaction and a request's, in PostgreSQL, with no
 * hook in the server. It locks one of the rows the request will lock, waits until the
 * request's transaction blocks on it, then asks for the request's other rows. The
 * request's backend, whose deadlock_timeout (1 s) fires first (the test's own is 60 s),
 * is the one PostgreSQL aborts with 40P01; the service runs its transaction again, which
 * succeeds once the test commits. The client sees one success, and
 * `db_transaction_retries_total{sqlstate="40P01"}` counts the retry.
 *
 * Which row to hold first depends on the order in which the request locks its rows;
 * the test tries each order until one deadlocks, so that it does not depend on it.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { isTransactionConflict } from '../../../src/db/retry.js';
import type { ApiResponse } from '../../support/client.js';
import { get, post } from '../../support/client.js';
import { fundedWallet, newBusiness, newWallet } from '../../support/fixtures.js';
import { payoutBusiness, payoutReaching, sendPayout } from '../../support/payouts.js';
import { running } from '../../support/service.js';

/** The value of `db_transaction_retries_total{sqlstate="40P01"}` (0 when never counted). */
async function deadlockRetries(): Promise<number> {
  const text = (await get('/metrics')).body as string;
  const line = text.split('\n').find((l) => l.startsWith('db_transaction_retries_total{sqlstate="40P01"}'));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

/** Waits until some other backend of the database waits for a lock (the request's). */
async function requestBlocked(ms = 10_000): Promise<void> {
  const db = running().db;
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const { rows } = await db.raw("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
    if (rows[0].n > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the request never waited for the row the test holds');
}

/**
 * Sends `send()` while the test holds `first` (account ids), then locks `rest`: a
 * deadlock if the request holds one of `rest` while waiting for `first`. Returns the
 * response and whether a retry was counted meanwhile.
 */
async function collide(first: string, rest: string[], send: () => Promise<ApiResponse>): Promise<{ res: ApiResponse; retried: boolean }> {
  const before = await deadlockRetries();
  const trx = await running().db.transaction();
  let pending: Promise<ApiResponse> | undefined;
  try {
    await trx.raw("SET LOCAL deadlock_timeout = '60s'");
    await trx.raw('SELECT id FROM accounts WHERE id = ? FOR UPDATE', [first]);
    pending = send();
    await requestBlocked();
    await trx.raw('SELECT id FROM accounts WHERE id = ANY(?) ORDER BY id FOR UPDATE', [rest]);
    await trx.commit();
  } catch (err) {
    await trx.rollback().catch(() => undefined);
    throw err;
  }
  const res = await pending;
  return { res, retried: (await deadlockRetries()) > before };
}

/**
 * Tries `first` = each of `rows` in turn until a collision makes the service retry;
 * `settled(res)` waits for the background work a success started (which would lock the
 * same rows) before the next try.
 */
async function collideInSomeOrder(rows: string[], send: () => Promise<ApiResponse>, success: number, settled: (res: ApiResponse) => Promise<unknown> = async () => undefined): Promise<void> {
  for (const first of rows) {
    const { res, retried } = await collide(first, rows.filter((r) => r !== first), send);
    expect(res.status, JSON.stringify(res.body)).to.equal(success);
    if (retried) return;
    await settled(res);
  }
  throw new Error('no order of the rows made a deadlock: does the request still lock them in one transaction?');
}

describe('transactions aborted by a deadlock are retried', function () {
  this.timeout(60_000);

  it('a transfer (one ledger statement) succeeds after its deadlock, and the retry is counted', async () => {
    const b = await newBusiness();
    const source = await fundedWallet(b.token, '100.00');
    const destination = await newWallet(b.token);
    let sent = 0;
    await collideInSomeOrder(
      [source.id, destination.id],
      () => {
        sent += 1;
        return post('/cl/v1/transfers', { source_wallet_id: source.id, destination_wallet_id: destination.id, amount: '1.00' }, { token: b.token });
      },
      201,
    );
    const balance = await get(`/cl/v1/wallets/${destination.id}/balance`, { token: b.token });
    expect(balance.body.balance, 'each transfer moved money once').to.equal(`${sent}.00`);
  });

  it('a payout (a transaction of several statements) succeeds after its deadlock, once', async () => {
    const { b, customer } = await payoutBusiness('100.00');
    const accounts = await running().db('accounts').where({ business_id: b.id }).whereIn('kind', ['PAYOUT', 'IN_TRANSIT']).pluck('id');
    const rows = [customer.wallet_id, ...accounts];
    const keys: string[] = [];
    await collideInSomeOrder(
      rows,
      () => {
        keys.push(randomUUID());
        return sendPayout(b, { payout_amount: '1.00', payout_purpose: 'Cashback', external_reference: `retry-${keys.length}`, mobileNumber: customer.mobile_number }, keys.at(-1));
      },
      200,
      (res) => payoutReaching(b, res.body.payout_id, 'COMPLETED'),
    );
    const payouts = await running().db('payouts').where({ business_id: b.id }).count<{ count: string }[]>('* as count');
    expect(Number(payouts[0].count), 'one payout per request').to.equal(keys.length);
  });

  it("also retries Citus's refusal of a delegated call whose business's shard moves under it, and no other refusal", () => {
    const citus = (message: string) => Object.assign(new Error(message), { code: '0A000' });
    expect(isTransactionConflict(citus('queries must filter by the distribution argument in the same colocation group when using the forced function pushdown'))).to.equal(true);
    expect(isTransactionConflict(citus('cannot perform distributed planning on this query'))).to.equal(false);
    expect(isTransactionConflict(Object.assign(new Error('deadlock detected'), { code: '40P01' }))).to.equal(true);
    expect(isTransactionConflict(Object.assign(new Error('duplicate key value'), { code: '23505' }))).to.equal(false);
  });
});
