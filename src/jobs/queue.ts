/**
 * The service's durable job queue: pg-boss (npm `pg-boss` 12, PostgreSQL only, its
 * tables in the `pgboss` schema of the service's database, created or migrated on start
 * by ./boss.ts; a schema of pg-boss 10 is moved over by src/jobs/pgboss10.ts).
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
 * - Queues are worked by pg-boss's workers (`defineQueue`, ./workers.ts) or as a stream
 *   (`defineStream`, ./stream.ts), whose jobs run each on its own.
 *
 * Reuse: `defineQueue({ name, concurrency, batchSize?, retryLimit, retryDelaySeconds,
 * expireInSeconds, handler or batchHandler })` or `defineStream(…)` once at start
 * (src/server.ts), then `jobs.send(name, data, { trx, startAfter })` (or `sendMany` /
 * `sendEach` for many jobs in one statement) from domain code. A handler must be
 * idempotent (at-least-once): check the state it moves before moving it.
 */
import { setMaxListeners } from 'node:events';
import type { Knex } from 'knex';
import type { PgBoss } from 'pg-boss';
import type { OutageLog } from '../db/unavailable.js';
import type { Logger } from '../log.js';
import { createBoss, inTransaction, startBoss, type QueueContext } from './boss.js';
import type { QueueDatabase } from './queueDatabase.js';
import { startStream, stopStreams, type Stream, type StreamDefinition } from './stream.js';
import { startWorkers, type QueueDefinition } from './workers.js';

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

/** An AbortController whose signal may have any number of listeners (see JobQueue.aborter). */
function shutdownController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

/** A started queue; see the module comment. */
export class JobQueue {
  private readonly workers = new Map<string, string[]>();
  private readonly streams = new Map<string, Stream>();
  /**
   * The instance's shutdown signal, handed to every handler. Every outbound call in
   * flight (src/kernel/deadline.ts) and every webhook attempt waiting for its endpoint's
   * slot listens to it, each removing its listener when done: their number is bounded by
   * the workers and their batches, so Node's warning past ten listeners is off for it.
   */
  private readonly aborter = shutdownController();
  private stopping = false;
  private lastErrorLog = 0;
  /** What this queue's workers and streams share with it (./boss.ts). */
  private readonly context: QueueContext;

  private constructor(
    private readonly boss: PgBoss,
    private readonly database: QueueDatabase,
    private readonly log: Logger,
    private readonly outages: OutageLog | undefined,
    pollingIntervalSeconds: number,
  ) {
    this.context = {
      boss,
      signal: this.aborter.signal,
      pollingIntervalSeconds,
      stopping: () => this.stopping,
      noteError: (err) => this.noteError(err),
    };
  }

  /**
   * Connects (own pool of at most 4 connections), creates or migrates pg-boss's schema
   * (carrying a pg-boss 10 schema's pending jobs over), starts the supervisor.
   */
  static async start(opts: JobQueueOptions): Promise<JobQueue> {
    let queue: JobQueue | undefined;
    const { boss, database } = createBoss(opts, (err) => queue?.noteError(err));
    queue = new JobQueue(boss, database, opts.log, opts.outages, opts.pollingIntervalSeconds ?? 1);
    await startBoss(boss, database, opts.log);
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

  /** Creates the queue (if missing) and starts `concurrency` workers for it in this instance (./workers.ts). */
  async defineQueue<T extends object>(def: QueueDefinition<T>): Promise<void> {
    this.workers.set(def.name, await startWorkers(this.context, def));
  }

  /** Creates the queue (if missing) and starts its stream in this instance (./stream.ts). */
  async defineStream<T extends object>(def: StreamDefinition<T>): Promise<void> {
    this.streams.set(def.name, await startStream(this.context, def));
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

  /**
   * Enqueues one job of queue `name` per entry of `jobs`, each due at its own
   * `startAfter` (or at once), in one statement; `opts.trx` as for `send`.
   */
  async sendEach(name: string, jobs: { data: object; startAfter?: Date }[], opts: Pick<SendOptions, 'trx'> = {}): Promise<void> {
    if (jobs.length === 0) return;
    await this.boss.insert(
      name,
      jobs.map(({ data, startAfter }) => ({ data, ...(startAfter ? { startAfter: startAfter.toISOString() } : {}) })),
      opts.trx ? { db: inTransaction(opts.trx) } : {},
    );
  }

  /** Wakes this instance's idle workers (or stream) of `name` (jobs enqueued here are then picked up at once). */
  wake(name: string): void {
    for (const id of this.workers.get(name) ?? []) this.boss.notifyWorker(id);
    this.streams.get(name)?.wake('jobs');
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
      await stopStreams(this.context, [...this.streams.values()], Math.max(timeoutMs, 1_000) / 2);
      // pg-boss's stop resolves once its workers stopped and what was still active was failed.
      await this.boss.stop({ graceful: true, timeout: Math.max(timeoutMs, 1_000) });
    } finally {
      await this.database.close().catch(() => undefined);
    }
  }
}
