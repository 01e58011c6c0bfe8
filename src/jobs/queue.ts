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
 * - Enqueueing can join a business's database transaction (`send(…, { trx, businessId })`):
 *   the job is staged in the job outbox on the business's shard and exists if and only if
 *   the transaction commits, which is how an effect and "do the next step" are written
 *   atomically; it is handed to pg-boss once the transaction commits, or by the sweep if
 *   the instance dies first (./outbox.ts), and its queue's idle workers are woken then.
 * - `stop()` aborts handlers in flight (their `signal`), lets them finish for a bounded
 *   time, fails what is still running (pg-boss retries it on the next start or on another
 *   instance) and closes the queue's pool: well inside the 10 s shutdown budget.
 * - Queues are worked by pg-boss's workers (`defineQueue`, ./workers.ts) or as a stream
 *   (`defineStream`, ./stream.ts), whose jobs run each on its own.
 *
 * Reuse: `defineQueue({ name, concurrency, batchSize?, retryLimit, retryDelaySeconds,
 * expireInSeconds, handler or batchHandler })` or `defineStream(…)` once at start
 * (src/server.ts), then `jobs.send(name, data, { trx, businessId, startAfter })` (or `sendMany` /
 * `sendEach` for many jobs in one statement) from domain code. A handler must be
 * idempotent (at-least-once): check the state it moves before moving it.
 */
import { setMaxListeners } from 'node:events';
import type { Knex } from 'knex';
import type { PgBoss } from 'pg-boss';
import type { OutageLog } from '../db/unavailable.js';
import type { Logger } from '../log.js';
import { createBoss, startBoss, type QueueContext } from './boss.js';
import { handedOver, stage, stranded, type StagedJobs } from './outbox.js';
import type { QueueDatabase } from './queueDatabase.js';
import { startStream, stopStreams, type Stream, type StreamDefinition } from './stream.js';
import { startWorkers, type QueueDefinition } from './workers.js';

/** Enqueue inside transaction `trx` of business `businessId`: the job exists only if it commits (./outbox.ts). */
export interface InTransaction {
  trx: Knex.Transaction;
  businessId: string;
}

/** Where a job is enqueued: into the queue at once, or inside a business's transaction. */
export type Enqueue = InTransaction | { trx?: undefined };

/** How a job is enqueued (`Enqueue`), due at once or at `startAfter`. */
export type SendOptions = { startAfter?: Date } & Enqueue;

/** Outbox rows handed over by one sweep, at most. */
const SWEEP_LIMIT = 200;

export interface JobQueueOptions {
  databaseUrl: string;
  /** The service's database: the job outbox's hand-off and sweep (./outbox.ts). */
  db: Knex;
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
   * flight (src/kernel/scheduling/deadline.ts) and every webhook attempt waiting for its endpoint's
   * slot listens to it, each removing its listener when done: their number is bounded by
   * the workers and their batches, so Node's warning past ten listeners is off for it.
   */
  private readonly aborter = shutdownController();
  private stopping = false;
  private lastErrorLog = 0;
  /** What this queue's workers and streams share with it (./boss.ts). */
  private readonly context: QueueContext;

  /** Hand-offs in flight (./outbox.ts), awaited by `stop`. */
  private readonly handOffs = new Set<Promise<void>>();
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> = Promise.resolve();

  private constructor(
    private readonly boss: PgBoss,
    private readonly database: QueueDatabase,
    private readonly opts: JobQueueOptions,
  ) {
    this.context = {
      boss,
      signal: this.aborter.signal,
      pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 1,
      stopping: () => this.stopping,
      noteError: (err) => this.noteError(err),
    };
  }

  /**
   * Connects (own pool of at most 4 connections), creates or migrates pg-boss's schema
   * (carrying a pg-boss 10 schema's pending jobs over), starts the supervisor and the
   * job outbox's sweep (every `maintenanceIntervalSeconds`, rows older than that).
   */
  static async start(opts: JobQueueOptions): Promise<JobQueue> {
    let queue: JobQueue | undefined;
    const { boss, database } = createBoss(opts, (err) => queue?.noteError(err));
    queue = new JobQueue(boss, database, opts);
    await startBoss(boss, database, opts.log);
    queue.scheduleSweep();
    return queue;
  }

  /**
   * Reports a background error: a database outage to the outage log (one line per
   * outage), anything else at most once a minute (it would repeat every poll).
   */
  noteError(err: unknown): void {
    if (this.stopping) return;
    if (this.opts.outages?.noteBackground(err)) return;
    const now = Date.now();
    if (now - this.lastErrorLog < 60_000) return;
    this.lastErrorLog = now;
    const e = err as { code?: string; message?: string };
    this.opts.log.warn({ job_error: e.code ?? e.message }, 'job queue: background error (retrying)');
  }

  /** Creates the queue (if missing) and starts `concurrency` workers for it in this instance (./workers.ts). */
  async defineQueue<T extends object>(def: QueueDefinition<T>): Promise<void> {
    this.workers.set(def.name, await startWorkers(this.context, def));
  }

  /** Creates the queue (if missing) and starts its stream in this instance (./stream.ts). */
  async defineStream<T extends object>(def: StreamDefinition<T>): Promise<void> {
    this.streams.set(def.name, await startStream(this.context, def));
  }

  /** Enqueues one job; see `SendOptions`. */
  async send(name: string, data: object, opts: SendOptions = {}): Promise<void> {
    await this.sendEach(name, [{ data, startAfter: opts.startAfter }], opts);
  }

  /** Enqueues one job of queue `name` per entry of `data` in one statement; see `SendOptions`. */
  async sendMany(name: string, data: object[], opts: SendOptions = {}): Promise<void> {
    await this.sendEach(name, data.map((d) => ({ data: d, startAfter: opts.startAfter })), opts);
  }

  /**
   * Enqueues one job of queue `name` per entry of `jobs`, each due at its own
   * `startAfter` (or at once), with the queue's own retry and expiry settings, in one
   * statement: into pg-boss at once, or inside `opts.trx` into the job outbox, handed
   * over when it commits.
   */
  async sendEach(name: string, jobs: { data: object; startAfter?: Date }[], opts: Enqueue = {}): Promise<void> {
    if (jobs.length === 0) return;
    if (!opts.trx) {
      await this.boss.insert(name, jobs.map(({ data, startAfter }) => ({ data, ...(startAfter ? { startAfter: startAfter.toISOString() } : {}) })));
      return;
    }
    const staged = await stage(opts.trx, opts.businessId, name, jobs);
    // executionPromise settles once the transaction committed or rolled back.
    opts.trx.executionPromise.then(
      () => this.track(this.handOver(staged)),
      () => undefined,
    );
  }

  /**
   * Hands the outbox row `staged` over: its jobs into pg-boss (ids fixed when staged,
   * so a second hand-off of the row enqueues nothing), then the row deleted, then the
   * queue's idle workers woken if a job is due. A failure leaves the row to the sweep.
   */
  private async handOver(staged: StagedJobs): Promise<void> {
    try {
      await this.boss.insert(staged.queue, staged.jobs);
      await handedOver(this.opts.db, staged);
      const now = new Date().toISOString();
      if (!this.stopping && staged.jobs.some((job) => !job.startAfter || job.startAfter <= now)) this.wake(staged.queue);
    } catch (err) {
      this.noteError(err);
    }
  }

  private track(work: Promise<void>): void {
    this.handOffs.add(work);
    void work.finally(() => this.handOffs.delete(work));
  }

  /** Hands over the outbox rows whose hand-off did not happen, then sweeps again after the maintenance interval. */
  private scheduleSweep(): void {
    const intervalMs = (this.opts.maintenanceIntervalSeconds ?? 5) * 1000;
    this.sweepTimer = setTimeout(() => {
      this.sweeping = (async () => {
        try {
          for (const staged of await stranded(this.opts.db, intervalMs, SWEEP_LIMIT)) await this.handOver(staged);
        } catch (err) {
          this.noteError(err);
        }
        if (!this.stopping) this.scheduleSweep();
      })();
    }, intervalMs);
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
    clearTimeout(this.sweepTimer);
    this.aborter.abort(new Error('the service is shutting down'));
    try {
      await Promise.all([this.sweeping, ...this.handOffs]);
      await stopStreams(this.context, [...this.streams.values()], Math.max(timeoutMs, 1_000) / 2);
      // pg-boss's stop resolves once its workers stopped and what was still active was failed.
      await this.boss.stop({ graceful: true, timeout: Math.max(timeoutMs, 1_000) });
    } finally {
      await this.database.close().catch(() => undefined);
    }
  }
}
