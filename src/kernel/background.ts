/**
 * The background lane: database work done for many payouts or deliveries at once runs
 * at most `concurrency` transactions at a time per pool (one by default,
 * BACKGROUND_CONCURRENCY), in order of arrival. Its work: a bulk payout's creation
 * (src/payouts/bulk.ts), the payout processing's batched steps
 * (src/payouts/processing.ts), the webhook relay (src/webhooks/dispatcher.ts) and the
 * recording of delivery attempts (src/webhooks/delivery.ts). Single requests (a transfer,
 * a read, one payout) never wait here.
 *
 * Why: each of these transactions keeps a PostgreSQL backend busy for up to about a
 * second (a 1,000-item bulk payout), and ten bulk payouts sent at once, their 10,000
 * payouts' processing and their 30,000 deliveries otherwise had every core of a small
 * database busy, so the requests of everyone else waited for a CPU: beside them the
 * other traffic's p99 went from 5 to 58 ms (`npm run bench`, 2 cores). One at a time it
 * is 18–25 ms, and the payouts complete sooner, not later, because they no longer compete
 * with each other for the same cores and the same WAL flushes (openapi/DESIGN.md).
 *
 * Lock safety: work takes the lane before it opens its transaction and gives it back
 * after its commit or rollback, so no work holds a database lock while it waits here;
 * work that waits for a business's turn (src/kernel/turns.ts) takes the turn first. Like
 * a turn, the lane is an ordering within one instance: N instances run up to N ×
 * `concurrency` such transactions, and row locks keep the data right.
 */
import type { Knex } from 'knex';
import { WorkQueue } from './workQueue.js';

/** The concurrency of a pool that configureBackground was not called for. */
export const DEFAULT_BACKGROUND_CONCURRENCY = 1;

const lanes = new WeakMap<Knex, WorkQueue>();

function laneOf(db: Knex): WorkQueue {
  let lane = lanes.get(db);
  if (!lane) lanes.set(db, (lane = new WorkQueue(DEFAULT_BACKGROUND_CONCURRENCY)));
  return lane;
}

/** Sets how many background transactions pool `db` runs at a time (≥ 1; at start, src/server.ts). */
export function configureBackground(db: Knex, concurrency: number): void {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`background concurrency must be a positive integer, got ${concurrency}`);
  laneOf(db).concurrency = concurrency;
}

/** The lane of pool `db` now: its concurrency, the work running and the work waiting (for `/metrics`). */
export function backgroundLaneState(db: Knex): { concurrency: number; running: number; waiting: number } {
  const lane = laneOf(db);
  return { concurrency: lane.concurrency, running: lane.running, waiting: lane.waiting };
}

/**
 * Runs `work` in a transaction of pool `db` in the lane (inBackground): commits when it
 * resolves, rolls back and rejects as it does when it throws.
 */
export function backgroundTransaction<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return inBackground(db, () => db.transaction(work));
}

/**
 * Runs `run` (which opens and ends its own transaction on `db`) once fewer than the
 * lane's concurrency of background work of pool `db` is running, after the work that
 * arrived before it; resolves or rejects as `run` does.
 */
export function inBackground<T>(db: Knex, run: () => Promise<T>): Promise<T> {
  return laneOf(db).run(run);
}
