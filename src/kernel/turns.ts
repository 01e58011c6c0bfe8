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
 * Work marked `urgent` goes before every waiting work that is not (in order among
 * itself): short steps that others wait for (a batch of payout settlements, which a job
 * queue gives a time limit) are not queued behind long ones (the creation of ten bulk
 * payouts sent at once).
 *
 * A turn is only an ordering within one instance: instances still meet on the row
 * locks, which stay what keeps the data right. API nodes keep no other state.
 */
import type { Knex } from 'knex';

interface Lane {
  running: boolean;
  urgent: (() => void)[];
  normal: (() => void)[];
}

const lanes = new WeakMap<Knex, Map<string, Lane>>();

/**
 * Runs `run` once the work queued before it for (`businessId`, `lane`) on pool `db` has
 * settled (whatever its outcome), or, when `urgent`, once the running work and the urgent
 * work queued before it have; resolves or rejects as `run` does.
 */
export function inBusinessTurn<T>(db: Knex, businessId: string, lane: string, run: () => Promise<T>, opts: { urgent?: boolean } = {}): Promise<T> {
  let byName = lanes.get(db);
  if (!byName) lanes.set(db, (byName = new Map()));
  const name = `${businessId}/${lane}`;
  let state = byName.get(name);
  if (!state) byName.set(name, (state = { running: false, urgent: [], normal: [] }));
  const current = state;
  const next = (): void => {
    const start = current.urgent.shift() ?? current.normal.shift();
    if (start) return start();
    current.running = false;
    byName.delete(name);
  };
  return new Promise<T>((resolve, reject) => {
    const start = (): void => {
      current.running = true;
      Promise.resolve()
        .then(run)
        .then(resolve, reject)
        .finally(next);
    };
    if (!current.running) start();
    else (opts.urgent ? current.urgent : current.normal).push(start);
  });
}
