/**
 * The upgrade of a database whose job queue pg-boss 10 created (its schema `pgboss` at
 * schema version 24) to pg-boss 12, keeping the jobs still to run.
 *
 * pg-boss migrates its own schema on `start()` from schema version 25 (pg-boss 11) on
 * only: pg-boss 11 replaced the schema without a migration from 10, and pg-boss 12 refuses
 * to start on version 24 ("Cannot migrate pg-boss schema from version 24"). A job is a
 * step of money movement still to be made (a payout's next step, a webhook delivery), so
 * the queue's pending jobs cannot be dropped with the old schema. Instead:
 *
 * 1. `setAsideV10Schema`, before pg-boss starts: the `pgboss` schema at version 24 is
 *    renamed `pgboss_v10`, and pg-boss 12 then creates a new `pgboss` schema.
 * 2. `carryOverV10Jobs`, once pg-boss 12 runs: every queue of the old schema is created in
 *    the new one, and every job not yet finished (created, retry or active) is inserted
 *    there with its data, its `startAfter` and its retry and expiry settings; then
 *    `pgboss_v10` is dropped, all in one transaction. A job that was active (its process
 *    stopped for the upgrade) is inserted as created, so it runs again at once: handlers
 *    are idempotent (at-least-once). Its retry count starts again at 0. Finished jobs
 *    (completed, failed, cancelled) are not carried over: nothing reads them.
 *
 * Both steps run under an advisory lock, so instances starting together do each once; a
 * crash between them leaves `pgboss_v10` for the next start to carry over. Instances of
 * the previous release (pg-boss 10) must all be stopped before the first instance of this
 * one starts: they would go on writing to the schema this one moves aside.
 */
import type { Db, JobInsert, PgBoss } from 'pg-boss';
import type pg from 'pg';
import type { QueueDatabase } from './queueDatabase.js';

/** Where pg-boss 10's schema is kept between the two steps. */
export const V10_SCHEMA = 'pgboss_v10';

/** The last schema version of pg-boss 10; pg-boss 12 migrates from the next one on. */
const V10_SCHEMA_VERSION = 24;

const LOCK = `SELECT pg_advisory_xact_lock(hashtext('wallet-service: pg-boss 10 carry-over'))`;

/** Jobs per insert statement while carrying over. */
const CHUNK = 1_000;

/**
 * Step 1: renames the `pgboss` schema to `pgboss_v10` when it holds pg-boss 10's schema.
 * Returns whether `pgboss_v10` exists (renamed now, or by an earlier start whose carry-over
 * did not finish), i.e. whether `carryOverV10Jobs` has work to do.
 */
export async function setAsideV10Schema(database: QueueDatabase): Promise<boolean> {
  return database.transaction(async (client) => {
    await client.query(LOCK);
    const { rows } = await client.query<{ v10: boolean; version_table: string | null }>(
      `SELECT to_regnamespace($1) IS NOT NULL AS v10, to_regclass('pgboss.version')::text AS version_table`,
      [V10_SCHEMA],
    );
    if (rows[0].v10) return true;
    if (!rows[0].version_table) return false;
    const version = (await client.query<{ version: number }>('SELECT max(version) AS version FROM pgboss.version')).rows[0]?.version;
    if (version === null || version === undefined || version > V10_SCHEMA_VERSION) return false;
    await client.query(`ALTER SCHEMA pgboss RENAME TO ${V10_SCHEMA}`);
    return true;
  });
}

/** The columns of a pending pg-boss 10 job that a pg-boss 12 insert takes. */
interface V10Job {
  name: string;
  data: object | null;
  priority: number;
  start_after: Date;
  retry_limit: number;
  retry_delay: number;
  retry_backoff: boolean;
  expire_seconds: number;
}

/**
 * Step 2: carries the pending jobs of `pgboss_v10` over to pg-boss 12 (see the module
 * comment) and drops `pgboss_v10`. Returns the number of jobs carried over (0 when
 * another instance did it first).
 */
export async function carryOverV10Jobs(boss: PgBoss, database: QueueDatabase): Promise<number> {
  // Queues first, outside the transaction: pg-boss creates them on its own connections,
  // and creating an existing queue changes nothing.
  const names = await database
    .executeSql(`SELECT name FROM ${V10_SCHEMA}.queue ORDER BY name`)
    .then((r) => r.rows.map((row: { name: string }) => row.name))
    .catch((err: { code?: string }) => {
      if (err.code === '3F000' || err.code === '42P01') return [] as string[]; // carried over by another instance
      throw err;
    });
  for (const name of names) await boss.createQueue(name);
  return database.transaction(async (client) => {
    await client.query(LOCK);
    if (!(await client.query(`SELECT to_regnamespace($1) IS NOT NULL AS present`, [V10_SCHEMA])).rows[0].present) return 0;
    const { rows } = await client.query<V10Job>(
      `SELECT name, data, priority, start_after, retry_limit, retry_delay, retry_backoff,
              greatest(1, ceil(extract(epoch FROM expire_in)))::int AS expire_seconds
         FROM ${V10_SCHEMA}.job
        WHERE state IN ('created', 'retry', 'active')
        ORDER BY name, created_on`,
    );
    const inTransaction = clientDb(client);
    for (let i = 0; i < rows.length; i += CHUNK) {
      const chunk = rows.slice(i, i + CHUNK);
      for (const name of new Set(chunk.map((job) => job.name))) {
        const jobs: JobInsert[] = chunk
          .filter((job) => job.name === name)
          .map((job) => ({
            data: job.data ?? {},
            priority: job.priority,
            startAfter: job.start_after,
            retryLimit: job.retry_limit,
            retryDelay: job.retry_delay,
            retryBackoff: job.retry_backoff,
            expireInSeconds: job.expire_seconds,
          }));
        await boss.insert(name, jobs, { db: inTransaction });
      }
    }
    await client.query(`DROP SCHEMA ${V10_SCHEMA} CASCADE`);
    return rows.length;
  });
}

/** pg-boss's `Db` over one connection (in its transaction). */
function clientDb(client: pg.PoolClient): Db {
  return { executeSql: (text, values) => client.query(text, values) };
}
