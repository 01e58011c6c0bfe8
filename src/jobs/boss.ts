/**
 * pg-boss itself, as the job queue (src/jobs/queue.ts) runs it: started on the service's
 * database with its schema created or migrated (a pg-boss 10 schema's pending jobs carried
 * over, src/jobs/pgboss10.ts), its queues created with their retry and expiry settings,
 * and enqueueing inside a knex transaction.
 *
 * A worker's fetch (`WHERE name = $1 AND state < 'active' AND start_after <= now() ORDER
 * BY priority DESC, created_on LIMIT n`) reads pg-boss's own index on those columns
 * (`job_i11`) in its order and stops after `n` rows, however many jobs wait: with the
 * 30,000 delivery jobs of ten bulk payouts waiting, a fetch without such an index reads
 * and sorts them all, a cost that grows with the queue (pg-boss 10 had no such index
 * and got one from the service).
 */
import type { Knex } from 'knex';
import { PgBoss, type Db } from 'pg-boss';
import { withConflictRetries } from '../db/retry.js';
import type { Logger } from '../log.js';
import { carryOverV10Jobs, setAsideV10Schema } from './pgboss10.js';
import { QueueDatabase } from './queueDatabase.js';

/**
 * What the workers (./workers.ts) and streams (./stream.ts) of a started queue share
 * with it: pg-boss, the instance's shutdown signal and how background errors are noted.
 */
export interface QueueContext {
  readonly boss: PgBoss;
  /** The instance's shutdown signal, handed to every handler. */
  readonly signal: AbortSignal;
  /** How often an idle worker looks for due jobs, in seconds. */
  readonly pollingIntervalSeconds: number;
  /** True once the queue stops: nothing more is fetched. */
  stopping(): boolean;
  /** Reports a background error (JobQueue.noteError). */
  noteError(err: unknown): void;
}

/** The retry and expiry settings of one queue. */
export interface QueueSettings {
  retryLimit: number;
  retryDelaySeconds: number;
  expireInSeconds: number;
}

/** pg-boss's `Db` over the connection of a knex transaction (native `$1` placeholders). */
export function inTransaction(trx: Knex.Transaction): Db {
  return {
    async executeSql(text, values) {
      const connection = (await trx.client.acquireConnection()) as { query(text: string, values?: unknown[]): Promise<{ rows: any[] }> };
      return connection.query(text, values);
    },
  };
}

/**
 * pg-boss on its own pool of at most 4 connections to `databaseUrl`, not started yet
 * (startBoss): background failures (a lost connection during an outage) go to `onError`.
 */
export function createBoss(opts: { databaseUrl: string; maintenanceIntervalSeconds?: number }, onError: (err: unknown) => void): { boss: PgBoss; database: QueueDatabase } {
  const database = new QueueDatabase(opts.databaseUrl, onError);
  const supervise = opts.maintenanceIntervalSeconds ?? 5;
  const boss = new PgBoss({
    db: database,
    // Active jobs past their expiry are failed (then retried) by the supervisor's monitor
    // pass, which runs when both intervals have passed.
    superviseIntervalSeconds: supervise,
    monitorIntervalSeconds: supervise,
    // No cron schedules are used; the clock-skew monitor and cron workers stay off.
    schedule: false,
  });
  // pg-boss reports background failures (a lost connection during an outage) as
  // `error` events; an EventEmitter without a listener would throw them.
  boss.on('error', onError);
  return { boss, database };
}

/**
 * Creates or migrates pg-boss's schema (carrying a pg-boss 10 schema's pending jobs
 * over) and starts the supervisor. Throws what migrating or starting throws, the pool
 * closed then.
 */
export async function startBoss(boss: PgBoss, database: QueueDatabase, log: Logger): Promise<void> {
  try {
    const v10 = await setAsideV10Schema(database);
    await boss.start();
    if (v10) {
      const carried = await carryOverV10Jobs(boss, database);
      if (carried > 0) log.info({ jobs: carried }, 'job queue: pending jobs of the pg-boss 10 schema carried over');
    }
  } catch (err) {
    await database.close().catch(() => undefined);
    throw err;
  }
}

/**
 * Creates queue `name` if missing and brings its settings to `def`'s. createQueue leaves
 * an existing queue as it is; updateQueue brings its options (e.g. a shorter expiry) to
 * what this version of the service defines. Instances starting together create the same
 * queues at once, and pg-boss's create_queue can then deadlock (its insert waits for the
 * other's, which waits for the partitioned job table): both statements are idempotent,
 * so a conflict is retried.
 */
export async function ensureQueue(boss: PgBoss, name: string, def: QueueSettings): Promise<void> {
  const options = {
    retryLimit: def.retryLimit,
    retryDelay: def.retryDelaySeconds,
    expireInSeconds: def.expireInSeconds,
    // A job not started within 14 days is deleted (pg-boss's default, stated).
    retentionSeconds: 14 * 24 * 3600,
  };
  const noted = () => undefined;
  await withConflictRetries(() => boss.createQueue(name, options), noted);
  await withConflictRetries(() => boss.updateQueue(name, options), noted);
}
