/**
 * Turns: work of one business that would wait on the same hot rows inside PostgreSQL
 * waits for its turn here instead, in this instance, outside any transaction.
 *
 * Why: a transaction that waits on a row lock keeps its snapshot, and while it waits
 * PostgreSQL cannot prune the row versions other transactions leave behind. On a hot
 * account (the payout and in-transit accounts, updated once per payout) every later
 * lookup of the row then walks a longer chain of versions, so each bulk payout sent at
 * once beside others is created slower than the one before; waiting here instead, they
 * are all created far sooner.
 *
 * Work marked `urgent` goes before every waiting work that is not (in order among
 * itself): short steps that others wait for (a batch of payout settlements, which a job
 * queue gives a time limit) are not queued behind long ones (the creation of ten bulk
 * payouts sent at once).
 *
 * A turn is only an ordering within one instance: instances still meet on the row
 * locks, which stay what keeps the data right. API nodes keep no other state.
 */
import type { Knex } from 'knex';
import { WorkQueue } from './workQueue.js';

/** The turns of each pool, by `<business>/<lane>`; a turn's queue is dropped once idle. */
const lanes = new WeakMap<Knex, Map<string, WorkQueue>>();

/**
 * Runs `run` once the work queued before it for (`businessId`, `lane`) on pool `db` has
 * settled (whatever its outcome), or, when `urgent`, once the running work and the urgent
 * work queued before it have; resolves or rejects as `run` does.
 */
export async function inBusinessTurn<T>(db: Knex, businessId: string, lane: string, run: () => Promise<T>, opts: { urgent?: boolean } = {}): Promise<T> {
  let byName = lanes.get(db);
  if (!byName) lanes.set(db, (byName = new Map()));
  const name = `${businessId}/${lane}`;
  let queue = byName.get(name);
  if (!queue) byName.set(name, (queue = new WorkQueue(1)));
  try {
    return await queue.run(run, opts);
  } finally {
    if (queue.idle && byName.get(name) === queue) byName.delete(name);
  }
}
