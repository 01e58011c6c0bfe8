/**
 * Work that waits for a commit: `whenCommitted(db, then)` runs `then(pool)` once what `db`
 * wrote is committed, with the pool it was written through, so that what it reports (a
 * metric's event on the pool, src/kernel/metrics/metrics.ts) never counts a transaction
 * that is rolled back, retried (db/retry.ts: each attempt is a transaction of its own) or
 * whose commit fails.
 *
 * A statement on the pool itself commits as it returns; inside a transaction, its outermost
 * transaction's commit is awaited (Knex's `executionPromise`; a savepoint's release commits
 * nothing). A Knex transaction does not know its pool, so the pool's `transaction` records it
 * (trackTransaction).
 */
import type { Knex } from 'knex';

/** The pool of each outermost transaction opened through a pool's `transaction`. */
const pools = new WeakMap<Knex.Transaction, Knex>();

/**
 * Records `trx` as a transaction of pool `db` (for `whenCommitted`). The pools' `transaction`
 * calls it for every transaction it opens, in both of Knex's forms (retryTransactions,
 * src/db/retry.ts, which every pool of `openPool` has). Returns `trx`.
 */
export function trackTransaction<T>(db: Knex, trx: T): T {
  pools.set(trx as Knex.Transaction, db);
  return trx;
}

/**
 * Runs `then(pool)` once what `db` (a pool, or a transaction on one) wrote is committed: at
 * once on a pool; inside a transaction when its outermost transaction commits, never when it
 * rolls back. A transaction whose pool is not recorded (trackTransaction) runs nothing.
 */
export function whenCommitted(db: Knex, then: (pool: Knex) => void): void {
  if (!db.isTransaction) {
    then(db);
    return;
  }
  let outermost = db as Knex.Transaction;
  while (outermost.parentTransaction) outermost = outermost.parentTransaction;
  const pool = pools.get(outermost);
  if (!pool) return;
  outermost.executionPromise.then(
    () => then(pool),
    () => undefined,
  );
}
