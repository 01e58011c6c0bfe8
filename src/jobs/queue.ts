/**
 * The service's durable job queue: pg-boss (npm `pg-boss` 10, PostgreSQL only, its
 * tables in the `pgboss` schema of the service's database, created on start).
 *
 * - Durable: a job is a row; it survives restarts of the service and of PostgreSQL.
 * - Every instance runs workers; pg-boss hands each job to one of them
 *   (`SELECT … FOR UPDATE SKIP LOCKED`), so no job is processed twice at once.
 * - A job whose handler throws is retried by pg-boss after `retryDelaySeconds`, up to
 *   `retryLimit` times; a job whose process died (crash, SIGKILL) is retried once it has
 *   been active longer than `expireInSeconds` (pg-boss's maintenance finds it).
 * - Enqueueing can join a database transaction (`send(…, { trx })`): the job exists if
 *   and only if the transaction commits, which is how an effect and "do the next step"
 *   are written atomically.
 * - `stop()` aborts handlers in flight (their `signal`), lets them finish for a bounded
 *   time, fails what is still running (pg-boss retries it on the next start or on another
 *   instance) and closes the queue's pool: well inside the 10 s shutdown budget.
 *
 * Reuse: `defineQueue({ name, concurrency, retryLimit, retryDelaySeconds,
 * expireInSeconds, handler })` once at start (src/server.ts), then
 * `jobs.send(name, data, { trx, startAfter })` from domain code. A handler must be
 * idempotent (at-least-once): check the state it moves before moving it.
 */
import type { Knex } from 'knex';
import PgBoss from 'pg-boss';
import type { Logger } from '../log.js';

/** One kind of job and its handler. */
export interface QueueDefinition<T extends object> {
  /** Queue name, e.g. `webhook-delivery`. */
  name: string;
  /** Workers of this queue in each instance (jobs processed in parallel). */
  concurrency: number;
  /** How many times pg-boss retries a job whose handler threw or whose process died. */
  retryLimit: number;
  retryDelaySeconds: number;
  /** A job active longer than this is taken to be lost and retried (must exceed the handler's longest run). */
  expireInSeconds: number;
  /** Runs one job; `signal` aborts when the instance shuts down. Throwing retries the job. */
  handler(data: T, signal: AbortSignal): Promise<void>;
}

export interface SendOptions {
  /** Enqueue inside this transaction: the job exists only if it commits. */
  trx?: Knex.Transaction;
  /** Not before this time. */
  startAfter?: Date;
}

export interface JobQueueOptions {
  databaseUrl: string;
  log: Logger;
  /** How often an idle worker looks for due jobs (pg-boss's minimum is 0.5 s). */
  pollingIntervalSeconds?: number;
  /** How often lost jobs are looked for (pg-boss maintenance). */
  maintenanceIntervalSeconds?: number;
}

/** pg-boss's `Db` over the connection of a knex transaction (native `$1` placeholders). */
function inTransaction(trx: Knex.Transaction): PgBoss.Db {
  return {
    async executeSql(text, values) {
      const connection = (await trx.client.acquireConnection()) as { query(text: string, values: unknown[]): Promise<{ rows: unknown[] }> };
      return connection.query(text, values);
    },
  };
}

/** A started queue; see the module comment. */
export class JobQueue {
  private readonly workers = new Map<string, string[]>();
  private readonly aborter = new AbortController();
  private stopping = false;
  private lastErrorLog = 0;

  private constructor(
    private readonly boss: PgBoss,
    private readonly log: Logger,
    private readonly pollingIntervalSeconds: number,
  ) {}

  /** Connects (own pool of at most 4 connections), creates pg-boss's schema if missing, starts maintenance. */
  static async start(opts: JobQueueOptions): Promise<JobQueue> {
    const boss = new PgBoss({
      connectionString: opts.databaseUrl,
      max: 4,
      application_name: 'wallet-service-jobs',
      maintenanceIntervalSeconds: opts.maintenanceIntervalSeconds ?? 60,
      // No cron schedules are used; the clock-skew monitor and cron workers stay off.
      schedule: false,
    });
    const queue = new JobQueue(boss, opts.log, opts.pollingIntervalSeconds ?? 1);
    // pg-boss reports background failures (a lost connection during an outage) as
    // `error` events; an EventEmitter without a listener would throw them.
    boss.on('error', (err) => queue.noteError(err));
    await boss.start();
    return queue;
  }

  /** Logs background errors at most once a minute (an outage would repeat them every poll). */
  noteError(err: unknown): void {
    if (this.stopping) return;
    const now = Date.now();
    if (now - this.lastErrorLog < 60_000) return;
    this.lastErrorLog = now;
    const e = err as { code?: string; message?: string };
    this.log.warn({ job_error: e.code ?? e.message }, 'job queue: background error (retrying)');
  }

  /** Creates the queue (if missing) and starts `concurrency` workers for it in this instance. */
  async defineQueue<T extends object>(def: QueueDefinition<T>): Promise<void> {
    await this.boss.createQueue(def.name, {
      name: def.name,
      retryLimit: def.retryLimit,
      retryDelay: def.retryDelaySeconds,
      expireInSeconds: def.expireInSeconds,
      retentionDays: 14,
    });
    const ids: string[] = [];
    for (let i = 0; i < def.concurrency; i++) {
      ids.push(
        await this.boss.work<T>(def.name, { pollingIntervalSeconds: this.pollingIntervalSeconds, batchSize: 1 }, async (jobs) => {
          for (const job of jobs) await def.handler(job.data, this.aborter.signal);
        }),
      );
    }
    this.workers.set(def.name, ids);
  }

  /** Enqueues one job; see `SendOptions`. Returns the job id. */
  async send(name: string, data: object, opts: SendOptions = {}): Promise<string | null> {
    return this.boss.send(name, data, {
      ...(opts.startAfter ? { startAfter: opts.startAfter } : {}),
      ...(opts.trx ? { db: inTransaction(opts.trx) } : {}),
    });
  }

  /** Wakes this instance's idle workers of `name` (jobs enqueued here are then picked up at once). */
  wake(name: string): void {
    for (const id of this.workers.get(name) ?? []) this.boss.notifyWorker(id);
  }

  /**
   * Stops within about `timeoutMs` (at least 1 s): no new jobs are fetched, handlers in
   * flight are aborted and get until the deadline, jobs still active are failed so that
   * pg-boss retries them, and the pool is closed.
   */
  async stop(timeoutMs = 3_000): Promise<void> {
    this.stopping = true;
    this.aborter.abort(new Error('the service is shutting down'));
    try {
      await this.boss.stop({ graceful: true, timeout: Math.max(timeoutMs, 1_000), wait: true });
    } finally {
      // When the database is gone pg-boss's stop fails before closing its pool.
      const db = this.boss.getDb() as PgBoss.Db & { opened?: boolean; close?: () => Promise<void> };
      if (db.opened && db.close) await db.close().catch(() => undefined);
    }
  }
}
