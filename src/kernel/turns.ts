/**
 * Turns: work of one business that would wait on the same hot rows inside PostgreSQL
 * waits for its turn here instead, in this instance, outside any transaction.
 *
 * Why: a transaction that waits on a row lock keeps its snapshot, and while it waits
 * PostgreSQL cannot prune the row versions other transactions leave behind. On a hot
 * account (the payout and in-transit accounts, updated once per payout) every later
 * lookup of the row then walks a longer chain of versions. Ten bulk payouts of 1,000
 * items sent at once took 57 s to create when they waited inside PostgreSQL (the last
 * five times slower than the first), 22 s when they waited here (`npm run bench`).
 *
 * A turn is only an ordering within one instance: instances still meet on the row
 * locks, which stay what keeps the data right. API nodes keep no other state.
 */
import type { Knex } from 'knex';

const chains = new WeakMap<Knex, Map<string, Promise<void>>>();

/**
 * Runs `run` once the work queued before it for (`businessId`, `lane`) on pool `db` has
 * settled (whatever its outcome); resolves or rejects as `run` does.
 */
export function inBusinessTurn<T>(db: Knex, businessId: string, lane: string, run: () => Promise<T>): Promise<T> {
  let lanes = chains.get(db);
  if (!lanes) chains.set(db, (lanes = new Map()));
  const name = `${businessId}/${lane}`;
  const before = lanes.get(name) ?? Promise.resolve();
  const mine = before.then(run);
  const settled = mine.then(
    () => undefined,
    () => undefined,
  );
  lanes.set(name, settled);
  void settled.then(() => {
    if (lanes.get(name) === settled) lanes.delete(name);
  });
  return mine;
}
