/**
 * The job outbox: how a business's transaction enqueues work atomically with its own
 * rows, when the queue (pg-boss, on the coordinator of a Citus cluster) and the
 * business's rows (on a worker) are not in one database.
 *
 * Citus commits a transaction that wrote one worker and the coordinator's own tables in
 * one phase, the worker first: a crash between the two commits would keep the payout and
 * lose its job. So a job enqueued inside a business's transaction is first a row of
 * `job_outbox` (business_id, id, queue, jobs), a tenant table on the business's shard,
 * written by that transaction (`stage`). After the commit the job queue hands the row
 * over (src/jobs/queue.ts): pg-boss's `insert` of its jobs under ids drawn when they
 * were staged, then the row's delete, each a statement of its own. A crash between the
 * commit and the hand-off leaves the row; one between the insert and the delete leaves
 * the row and the jobs. Either way the sweep (`stranded`, run by every instance each
 * maintenance interval) hands the row over again, and pg-boss's `ON CONFLICT DO
 * NOTHING` on the job's (name, id) makes a second insert of the same job a no-op: each
 * job is enqueued exactly once.
 *
 * On PostgreSQL without Citus the queue and the rows share the database; the outbox
 * costs an insert in the transaction and a delete after it (docs/scale-out.md).
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { acrossBusinesses } from '../db/acrossBusinesses.js';

/** One job as pg-boss's `insert` takes it: its id, its data and when it is due (ISO 8601, or at once). */
export interface OutboxJob {
  id: string;
  data: object;
  startAfter?: string;
}

/** A row of the job outbox: the jobs of one enqueue, for queue `queue`, of business `businessId`. */
export interface StagedJobs {
  businessId: string;
  id: string;
  queue: string;
  jobs: OutboxJob[];
}

/**
 * Writes `jobs` for `queue` as one outbox row of business `businessId` in `trx`, each
 * job under a fresh id. Returns the row, to be handed over once `trx` commits.
 */
export async function stage(
  trx: Knex.Transaction,
  businessId: string,
  queue: string,
  jobs: { data: object; startAfter?: Date }[],
): Promise<StagedJobs> {
  const staged: StagedJobs = {
    businessId,
    id: randomUUID(),
    queue,
    jobs: jobs.map(({ data, startAfter }) => ({ id: randomUUID(), data, ...(startAfter ? { startAfter: startAfter.toISOString() } : {}) })),
  };
  await trx('job_outbox').insert({ business_id: businessId, id: staged.id, queue, jobs: JSON.stringify(staged.jobs) });
  return staged;
}

/** Deletes the outbox row `staged` once its jobs are in the queue. */
export async function handedOver(db: Knex, staged: StagedJobs): Promise<void> {
  await db('job_outbox').where({ business_id: staged.businessId, id: staged.id }).delete();
}

/**
 * The outbox rows staged more than `olderThanMs` ago, oldest first, at most `limit`:
 * rows whose hand-off did not happen (the instance died) or failed (the database was
 * unreachable). A read across businesses (src/db/acrossBusinesses.ts), one per
 * maintenance interval and instance, served by the index on `created_at`.
 */
export async function stranded(db: Knex, olderThanMs: number, limit: number): Promise<StagedJobs[]> {
  const rows = await acrossBusinesses(db, (trx) =>
    trx('job_outbox')
      .whereRaw('created_at < now() - make_interval(secs => ?)', [olderThanMs / 1000])
      .orderBy('created_at')
      .limit(limit)
      .select('business_id', 'id', 'queue', 'jobs'),
  );
  return rows.map((r: { business_id: string; id: string; queue: string; jobs: OutboxJob[] }) => ({ businessId: r.business_id, id: r.id, queue: r.queue, jobs: r.jobs }));
}
