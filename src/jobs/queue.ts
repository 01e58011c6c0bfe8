/**
 * The service's durable job queue: pg-boss (npm `pg-boss` 12, PostgreSQL only, its
 * tables in the `pgboss` schema of the service's database, created or migrated on start;
 * a schema of pg-boss 10 is moved over by src/jobs/pgboss10.ts).
 *
 * - Durable: a job is a row; it survives restarts of the service and of PostgreSQL.
 * - Every instance runs workers; pg-boss hands each job to one of them
 *   (`SELECT … FOR UPDATE SKIP LOCKED`), so no job is processed twice at once.
 * - A job whose handler throws is retried by pg-boss after `retryDelaySeconds`, up to
 *   `retryLimit` times; a job whose process died (crash, SIGKILL) is retried once it has
 *   been active longer than `expireInSeconds` (pg-boss's supervisor finds it, every
 *   `maintenanceIntervalSeconds`).
 * - Enqueueing can join a database transaction (`send(…, { trx })`): the job exists if
 *   and only if the transaction commits, which is how an effect and "do the next step"
 *   are written atomically.
 * - `stop()` aborts handlers in flight (their `signal`), lets them finish for a bounded
 *   time, fails what is still running (pg-boss retries it on the next start or on another
 *   instance) and closes the queue's pool: well inside the 10 s shutdown budget.
 * - A worker's fetch (`WHERE name = $1 AND state < 'active' AND start_after <= now() ORDER
 *   BY priority DESC, created_on LIMIT n`) reads pg-boss's own index on those columns
 *   (`job_i11`) in its order and stops after `n` rows, however many jobs wait: with the
 *   30,000 delivery jobs of ten bulk payouts waiting, a fetch without such an index read
 *   and sorted them all (45 s of database time in one `npm run bench` bulk scenario
 *   against 19 s with it, under pg-boss 10, which had none and got one from the service).
 *
 * Reuse: `defineQueue({ name, concurrency, batchSize?, retryLimit, retryDelaySeconds,
 * expireInSeconds, handler or batchHandler })` once at start (src/server.ts), then
 * `jobs.send(name, data, { trx, startAfter })` (or `sendMany` for many jobs in one
 * statement) from domain code. A handler must be idempotent (at-least-once): check the
 * state it moves before moving it.
 */
import { setMaxListeners } from 'node:events';
import type { Knex } from 'knex';
import { PgBoss, type Db, type Job } from 'pg-boss';
import { withConflictRetries } from '../db/retry.js';
import type { OutageLog } from '../db/unavailable.js';
import type { Logger } from '../log.js';
import { carryOverV10Jobs, setAsideV10Schema } from './pgboss10.js';
import { QueueDatabase } from './queueDatabase.js';

/** One kind of job and its handler. */
export interface QueueDefinition<T extends object> {
  /** Queue name, e.g. `webhook-delivery`. */
  name: string;
  /** Workers of this queue in each instance (each fetches and runs its own jobs). */
  concurrency: number;
  /**
   * Jobs a worker fetches at once and runs side by side (default 1). A worker that found
   * jobs fetches again at once rather than after the polling interval, so a backlog is
   * worked through at the speed of its handlers, not one job per poll.
   */
  batchSize?: number;
  /** How many times pg-boss retries a job whose handler threw or whose process died. */
  retryLimit: number;
  retryDelaySeconds: number;
  /** A job active longer than this is taken to be lost and retried (must exceed the handler's longest run). */
  expireInSeconds: number;
  /** Runs one job; `signal` aborts when the instance shuts down. Throwing retries the job. */
  handler?(data: T, signal: AbortSignal): Promise<void>;
  /**
   * Runs the jobs of one fetch together, instead of `handler` one by one (e.g. in one
   * transaction). Throwing retries every job of the fetch.
   */
  batchHandler?(data: T[], signal: AbortSignal): Promise<void>;
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
  /** Where a database outage met by the queue's background work is logged (once per outage). */
  outages?: OutageLog;
  /** How often an idle worker looks for due jobs (pg-boss's minimum is 0.5 s). */
  pollingIntervalSeconds?: number;
  /** How often lost jobs (active past their expiry) are looked for (pg-boss's supervisor). */
  maintenanceIntervalSeconds?: number;
}

/** pg-boss's `Db` over the connection of a knex transaction (native `$1` placeholders). */
function inTransaction(trx: Knex.Transaction): Db {
  return {
    async executeSql(text, values) {
      const connection = (await trx.client.acquireConnection()) as { query(text: string, values?: unknown[]): Promise<{ rows: any[] }> };
      return connection.query(text, values);
    },
  };
}

/** An AbortController whose signal may have any number of listeners (see JobQueue.aborter). */
function shutdownController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

/** A started queue; see the module comment. */
export class JobQueue {
  private readonly workers = new Map<string, string[]>();
  /**
   * The instance's shutdown signal, handed to every handler. Every outbound call in
   * flight (src/kernel/deadline.ts) and every webhook attempt waiting for its endpoint's
   * slot listens to it, each removing its listener when done: their number is bounded by
   * the workers and their batches, so Node's warning past ten listeners is off for it.
   */
  private readonly aborter = shutdownController();
  private stopping = false;
  private lastErrorLog = 0;

  private constructor(
    private readonly boss: PgBoss,
    private readonly database: QueueDatabase,
    private readonly log: Logger,
    private readonly outages: OutageLog | undefined,
    private readonly pollingIntervalSeconds: number,
  ) {}

  /**
   * Connects (own pool of at most 4 connections), creates or migrates pg-boss's schema
   * (carrying a pg-boss 10 schema's pending jobs over), starts the supervisor.
   */
  static async start(opts: JobQueueOptions): Promise<JobQueue> {
    let queue: JobQueue | undefined;
    const database = new QueueDatabase(opts.databaseUrl, (err) => queue?.noteError(err));
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
    queue = new JobQueue(boss, database, opts.log, opts.outages, opts.pollingIntervalSeconds ?? 1);
    // pg-boss reports background failures (a lost connection during an outage) as
    // `error` events; an EventEmitter without a listener would throw them.
    boss.on('error', (err) => queue.noteError(err));
    try {
      const v10 = await setAsideV10Schema(database);
      await boss.start();
      if (v10) {
        const carried = await carryOverV10Jobs(boss, database);
        if (carried > 0) opts.log.info({ jobs: carried }, 'job queue: pending jobs of the pg-boss 10 schema carried over');
      }
    } catch (err) {
      await database.close().catch(() => undefined);
      throw err;
    }
    return queue;
  }

  /**
   * Reports a background error: a database outage to the outage log (one line per
   * outage), anything else at most once a minute (it would repeat every poll).
   */
  noteError(err: unknown): void {
    if (this.stopping) return;
    if (this.outages?.noteBackground(err)) return;
    const now = Date.now();
    if (now - this.lastErrorLog < 60_000) return;
    this.lastErrorLog = now;
    const e = err as { code?: string; message?: string };
    this.log.warn({ job_error: e.code ?? e.message }, 'job queue: background error (retrying)');
  }

  /** Creates the queue (if missing) and starts `concurrency` workers for it in this instance. */
  async defineQueue<T extends object>(def: QueueDefinition<T>): Promise<void> {
    const options = {
      retryLimit: def.retryLimit,
      retryDelay: def.retryDelaySeconds,
      expireInSeconds: def.expireInSeconds,
      // A job not started within 14 days is deleted (pg-boss's default, stated).
      retentionSeconds: 14 * 24 * 3600,
    };
    // createQueue leaves an existing queue as it is; updateQueue brings its options
    // (e.g. a shorter expiry) to what this version of the service defines. Instances
    // starting together create the same queues at once, and pg-boss's create_queue can
    // then deadlock (its insert waits for the other's, which waits for the partitioned
    // job table): both statements are idempotent, so a conflict is retried.
    const noted = () => undefined;
    await withConflictRetries(() => this.boss.createQueue(def.name, options), noted);
    await withConflictRetries(() => this.boss.updateQueue(def.name, options), noted);
    const ids: string[] = [];
    for (let i = 0; i < def.concurrency; i++) {
      let id = '';
      id = await this.boss.work<T>(def.name, { pollingIntervalSeconds: this.pollingIntervalSeconds, batchSize: def.batchSize ?? 1 }, async (jobs) => {
        await this.runBatch(def, jobs);
        // Jobs were found: look for more at once (pg-boss would wait out the polling interval).
        if (!this.stopping) this.boss.notifyWorker(id);
      });
      ids.push(id);
    }
    this.workers.set(def.name, ids);
  }

  /**
   * Runs the jobs of one fetch side by side. One job whose handler throws is failed on its
   * own (pg-boss retries it after its delay); pg-boss then completes the batch, which
   * leaves a failed job failed (it completes active jobs only).
   */
  private async runBatch<T extends object>(def: QueueDefinition<T>, jobs: Job<T>[]): Promise<void> {
    if (def.batchHandler) {
      await def.batchHandler(jobs.map((job) => job.data), this.aborter.signal);
      return;
    }
    const handler = def.handler!;
    if (jobs.length === 1) {
      await handler(jobs[0].data, this.aborter.signal);
      return;
    }
    await Promise.all(
      jobs.map(async (job) => {
        try {
          await handler(job.data, this.aborter.signal);
        } catch (err) {
          const e = err as { message?: string; code?: string };
          await this.boss.fail(def.name, job.id, { message: e.message ?? String(err), code: e.code });
        }
      }),
    );
  }

  /** Enqueues one job; see `SendOptions`. Returns the job id. */
  async send(name: string, data: object, opts: SendOptions = {}): Promise<string | null> {
    return this.boss.send(name, data, {
      ...(opts.startAfter ? { startAfter: opts.startAfter } : {}),
      ...(opts.trx ? { db: inTransaction(opts.trx) } : {}),
    });
  }

  /**
   * Enqueues one job of queue `name` per entry of `data` in one statement (pg-boss's
   * `insert`, with the queue's own retry and expiry settings); `opts` as for `send`.
   */
  async sendMany(name: string, data: object[], opts: SendOptions = {}): Promise<void> {
    if (data.length === 0) return;
    const startAfter = opts.startAfter?.toISOString();
    await this.boss.insert(
      name,
      data.map((d) => ({ data: d, ...(startAfter ? { startAfter } : {}) })),
      opts.trx ? { db: inTransaction(opts.trx) } : {},
    );
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
      // pg-boss's stop resolves once its workers stopped and what was still active was failed.
      await this.boss.stop({ graceful: true, timeout: Math.max(timeoutMs, 1_000) });
    } finally {
      await this.database.close().catch(() => undefined);
    }
  }
}
