/**
 * The database pg-boss runs on (its `db` option, src/jobs/queue.ts): a pg pool of the job
 * queue's own, whose failures are all handled, and the one index the service adds to
 * pg-boss's schema.
 */
import { createRequire } from 'node:module';
import pg from 'pg';
import type PgBoss from 'pg-boss';

/**
 * The statements pg-boss 10 runs without awaiting them: a worker completes or fails
 * its job with `this.complete(…)` / `this.fail(…)` and drops the promise
 * (timgit/pg-boss#577), so while PostgreSQL is unreachable each of them would be an
 * unhandled rejection, which ends a Node process. Their texts come from pg-boss's own
 * plans module (the version is pinned in package.json).
 */
function unawaitedStatements(): Set<string> {
  const plans = createRequire(import.meta.url)('pg-boss/src/plans.js') as Record<string, (schema: string) => string>;
  if (typeof plans.completeJobs !== 'function' || typeof plans.failJobsById !== 'function') {
    throw new Error('pg-boss: completeJobs/failJobsById plans not found; check src/jobs/queue.ts against the installed pg-boss');
  }
  return new Set([plans.completeJobs('pgboss'), plans.failJobsById('pgboss')]);
}

/**
 * pg-boss's database (its `db` option): a pg pool of our own with an error listener,
 * whose failures are all handled. A failure of a statement pg-boss does not await
 * (see unawaitedStatements) is reported to `onError` and answered "no rows": the job
 * stays active and is retried once it expires, as after a crash. Every other failure
 * is thrown to pg-boss, which reports it as an `error` event or to the caller.
 */
export class QueueDatabase implements PgBoss.Db {
  private readonly pool: pg.Pool;
  private readonly unawaited = unawaitedStatements();

  constructor(
    connectionString: string,
    private readonly onError: (err: unknown) => void,
  ) {
    this.pool = new pg.Pool({ connectionString, max: 4, application_name: 'wallet-service-jobs' });
    // A connection that breaks while idle in the pool is reported here; without a
    // listener the pool's `error` event would end the process.
    this.pool.on('error', (err) => this.onError(err));
  }

  async executeSql(text: string, values: unknown[]): Promise<{ rows: unknown[] }> {
    try {
      return await this.pool.query(text, values);
    } catch (err) {
      if (!this.unawaited.has(text)) throw err;
      this.onError(err);
      // pg-boss reads a missing result as "nothing affected".
      return undefined as unknown as { rows: unknown[] };
    }
  }

  /**
   * Creates, once, the index that serves pg-boss's fetch (`fetchNextJob` in its plans:
   * `WHERE name = $1 AND state < 'active' AND start_after < now() ORDER BY priority DESC,
   * created_on, id LIMIT n`). pg-boss 10 indexes created jobs by (name, start_after) only,
   * so every fetch reads and sorts all of a queue's waiting jobs: with the 30,000 delivery
   * jobs of ten bulk payouts waiting, fetching took 45 s of database time in one
   * `npm run bench` bulk scenario, 19 s with this index, which a fetch reads in its own
   * order and leaves after `n` rows. The index is on the partitioned job table, so every
   * queue's partition has it, present and future. Under an advisory lock, since instances
   * starting together would otherwise create it twice.
   */
  async ensureFetchOrderIndex(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('wallet-service: pgboss.job_fetch_order'))`);
      await client.query(`CREATE INDEX IF NOT EXISTS job_fetch_order ON pgboss.job (name, priority DESC, created_on, id) WHERE state < 'active'`);
      await client.query('COMMIT');
      client.release();
    } catch (err) {
      client.release(true); // the connection may be broken or mid-transaction: not back to the pool
      throw err;
    }
  }

  async close(): Promise<void> {
    if (!this.pool.ending) await this.pool.end();
  }
}
