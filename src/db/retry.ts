/**
 * Retrying a database transaction that PostgreSQL aborted because of concurrent
 * transactions: SQLSTATE 40P01 (deadlock detected: PostgreSQL cancels one of the
 * transactions in a lock cycle) and 40001 (serialization failure), and on Citus a
 * delegated call that met its business's shard moving (below). Nothing such a
 * transaction did was committed, so running it again from its start is safe: the
 * same as the client sending the request again, without the client seeing it.
 *
 * A whole transaction is run again at most TRANSACTION_ATTEMPTS times, after a
 * random pause ("full jitter": up to 20, 40, 80, 160 ms), so that the transactions of
 * one cycle do not meet again in the same order. When the last attempt fails too, its
 * error is thrown as it is: the HTTP layer answers it 503 SERVICE_UNAVAILABLE with
 * Retry-After (src/http/app.ts), never 500.
 *
 * Where it applies (installed once per pool by `retryTransactions`, see src/db/knex.ts):
 * every `db.transaction(callback)` on the pool (not a nested one: the outer transaction
 * is what was aborted), and every single statement `preparedQuery` runs on the pool.
 * A transaction callback must therefore keep to the database (and to calls a client
 * retry would make again, such as a provider call); it is the unit that is repeated.
 *
 * Each retry is reported as a `transaction-retry` event on the Knex instance, with the
 * SQLSTATE: src/kernel/metrics/metrics.ts counts them (`db_transaction_retries_total`).
 */
import type { Knex } from 'knex';
import { trackTransaction } from './committed.js';

/** Attempts of one transaction in all (the first and up to three retries). */
export const TRANSACTION_ATTEMPTS = 4;
/** Upper bound of the first pause, doubled for each later one (milliseconds). */
const FIRST_PAUSE_MS = 20;

/** SQLSTATEs of a transaction aborted by a conflict with concurrent ones. */
const CONFLICT_CODES = new Set(['40P01', '40001']);

/**
 * Citus's refusal of a statement inside a function delegated to a business's node
 * (docs/scale-out.md) whose shard is not the one the call was sent for. Every statement
 * of the service's functions names the call's business, so it only meets this while that
 * business's shard is split off or moved to another node under it: the call, its
 * transaction aborted, is sent again and finds the shard where it now is.
 */
const CITUS_SHARD_MOVED = /^queries must filter by the distribution argument/;

/** The Knex event of one retry; its argument is `{ code }`, the SQLSTATE. */
export const RETRY_EVENT = 'transaction-retry';

/**
 * True when `err` is PostgreSQL's deadlock (40P01) or serialization failure (40001), or
 * Citus's refusal of a delegated statement while the business's shard moves (0A000,
 * CITUS_SHARD_MOVED).
 */
export function isTransactionConflict(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = e?.code;
  if (typeof code !== 'string') return false;
  return CONFLICT_CODES.has(code) || (code === '0A000' && typeof e?.message === 'string' && CITUS_SHARD_MOVED.test(e.message));
}

/**
 * Runs `attempt` until it does not fail with a conflict (see the module comment), at
 * most TRANSACTION_ATTEMPTS times; calls `retried(code)` before each retry. Throws what
 * the last attempt threw.
 */
export async function withConflictRetries<T>(attempt: () => Promise<T>, retried: (code: string) => void): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (n >= TRANSACTION_ATTEMPTS || !isTransactionConflict(err)) throw err;
      retried((err as { code: string }).code);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * FIRST_PAUSE_MS * 2 ** (n - 1)));
    }
  }
}

const installed = new WeakSet<Knex>();

/**
 * Makes `db.transaction(callback[, config])` on the pool retry conflicts (see the module
 * comment); the other forms (no callback: a transaction the caller commits itself) are
 * left as they are. Every transaction it opens, in either form, is recorded as the pool's
 * (trackTransaction, ./committed.ts). Idempotent per Knex instance.
 */
export function retryTransactions(db: Knex): Knex {
  if (installed.has(db)) return db;
  installed.add(db);
  const open = db.transaction.bind(db) as (...args: unknown[]) => Promise<unknown>;
  const retrying = (container?: unknown, config?: unknown) => {
    if (typeof container !== 'function') return open(container, config).then((trx) => trackTransaction(db, trx));
    const tracked = (trx: Knex.Transaction) => (container as (t: Knex.Transaction) => unknown)(trackTransaction(db, trx));
    return withConflictRetries(
      () => open(tracked, config),
      (code) => db.emit(RETRY_EVENT, { code }),
    );
  };
  Object.defineProperty(db, 'transaction', { value: retrying, configurable: true, writable: true });
  return db;
}
