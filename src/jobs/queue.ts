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
 * - A stream (`defineStream`) runs each job on its own, as soon as it is fetched, while
 *   fewer than `maxActive` of its jobs are active in the instance: a slow job holds one
 *   place, not a worker and the jobs fetched with it (pg-boss's `work` runs a fetch's jobs
 *   together and fetches again once the slowest ended). Jobs that end together are
 *   completed in one call.
 *
 * Reuse: `defineQueue({ name, concurrency, batchSize?, retryLimit, retryDelaySeconds,
 * expireInSeconds, handler or batchHandler })` or `defineStream(…)` once at start
 * (src/server.ts), then `jobs.send(name, data, { trx, startAfter })` (or `sendMany` /
 * `sendEach` for many jobs in one statement) from domain code. A handler must be
 * idempotent (at-least-once): check the state it moves before moving it.
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

/** A queue whose jobs run each on its own (see the module comment). */
export interface StreamDefinition<T extends object> {
  /** Queue name, e.g. `webhook-delivery`. */
  name: string;
  /** Jobs of this queue active in this instance at most (fetched and not yet ended). */
  maxActive: number;
  /** Jobs fetched at once, at most. */
  fetchSize: number;
  retryLimit: number;
  retryDelaySeconds: number;
  /** A job active longer than this is taken to be lost and retried (must exceed the handler's longest run). */
  expireInSeconds: number;
  /** Runs one job; `signal` aborts when the instance shuts down. Resolving completes the job, throwing fails it (pg-boss retries it). */
  handler(data: T, signal: AbortSignal): Promise<void>;
}

/** The running state of one stream of this instance. */
interface Stream {
  name: string;
  /** The loop that fetches; resolves once the stream stopped fetching. */
  loop: Promise<void>;
  /** Jobs running, by id. */
  active: Map<string, Job<object>>;
  /** Wakes the loop: jobs were enqueued here (or the queue stops), or a job ended and made room. */
  wake(reason: 'jobs' | 'room'): void;
  /** Settles what ended and is not settled yet. */
  flush(): Promise<void>;
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
   * Creates the queue (if missing) and starts its stream in this instance: a loop that
   * fetches up to `fetchSize` jobs whenever fewer than `maxActive` are running and runs
   * each on its own; the jobs that ended while the previous settling call ran are
   * completed (or failed, for a handler that threw) in the next one. Fetches again at once
   * while it finds jobs, else after the polling interval or a `wake`.
   */
  async defineStream<T extends object>(def: StreamDefinition<T>): Promise<void> {
    const options = { retryLimit: def.retryLimit, retryDelay: def.retryDelaySeconds, expireInSeconds: def.expireInSeconds, retentionSeconds: 14 * 24 * 3600 };
    const noted = () => undefined;
    await withConflictRetries(() => this.boss.createQueue(def.name, options), noted);
    await withConflictRetries(() => this.boss.updateQueue(def.name, options), noted);

    const active = new Map<string, Job<object>>();
    // The loop naps when it is full (a job's end wakes it) or found fewer jobs than it
    // asked for (jobs enqueued here wake it, and a wake during a fetch is kept for the next nap).
    let napping: { full: boolean; end(): void } | undefined;
    let newJobs = false;
    const wake = (reason: 'jobs' | 'room') => {
      if (reason === 'jobs' && !napping) newJobs = true;
      if (napping && (reason === 'jobs' || napping.full)) napping.end();
    };
    const nap = (full: boolean) =>
      new Promise<void>((resolve) => {
        if (!full && newJobs) {
          newJobs = false;
          return resolve();
        }
        const end = () => {
          clearTimeout(timer);
          napping = undefined;
          resolve();
        };
        const timer = setTimeout(end, this.pollingIntervalSeconds * 1000);
        napping = { full, end };
      });

    // Settling: the jobs that ended, completed (or failed) in one call per kind.
    const ended: Job<object>[] = [];
    const failed: { job: Job<object>; error: { message: string; code?: string } }[] = [];
    let settling: Promise<void> = Promise.resolve();
    const settleNow = async () => {
      const done = ended.splice(0);
      const broken = failed.splice(0);
      try {
        if (done.length > 0) await this.boss.complete(def.name, done.map(({ id, retryCount }) => ({ id, retryCount })));
        for (const { job, error } of broken) await this.boss.fail(def.name, { id: job.id, retryCount: job.retryCount }, error);
      } catch (err) {
        // Not settled: they stay active until their expiry, then pg-boss retries them
        // and the handler finds its work done (idempotent).
        this.noteError(err);
      }
    };
    const flush = () => (settling = settling.then(() => (ended.length > 0 || failed.length > 0 ? settleNow() : undefined)));

    const run = (job: Job<T>) => {
      active.set(job.id, job as Job<object>);
      void def.handler(job.data, this.aborter.signal).then(
        () => ended.push(job as Job<object>),
        (err: { message?: string; code?: string }) => failed.push({ job: job as Job<object>, error: { message: err?.message ?? String(err), code: err?.code } }),
      ).finally(() => {
        active.delete(job.id);
        void flush();
        wake('room');
      });
    };

    const loop = (async () => {
      while (!this.stopping) {
        // Fetches are of fetchSize jobs (or all the room there is), not one job per job ended.
        const room = def.maxActive - active.size;
        if (room < Math.min(def.fetchSize, def.maxActive)) {
          await nap(true);
          continue;
        }
        const size = Math.min(room, def.fetchSize);
        let jobs: Job<T>[] = [];
        try {
          jobs = await this.boss.fetch<T>(def.name, { batchSize: size });
        } catch (err) {
          this.noteError(err);
        }
        if (this.stopping) {
          // Fetched while stopping: given back at once, retried by whichever instance runs next.
          if (jobs.length > 0) await this.boss.fail(def.name, jobs.map(({ id, retryCount }) => ({ id, retryCount })), { message: 'the service is shutting down' }).catch((err) => this.noteError(err));
          break;
        }
        for (const job of jobs) run(job);
        if (jobs.length < size) await nap(false);
      }
    })();
    this.streams.set(def.name, { name: def.name, loop, active, wake, flush });
  }

  /**
   * Ends the streams within `timeoutMs`: their loops stop fetching, the jobs running get
   * until the deadline (the shutdown signal has told them to stop), what ended is settled
   * and what still runs is failed, so that pg-boss retries it.
   */
  private async stopStreams(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (const stream of this.streams.values()) stream.wake('jobs');
    await Promise.all([...this.streams.values()].map((s) => s.loop));
    while ([...this.streams.values()].some((s) => s.active.size > 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    for (const stream of this.streams.values()) {
      await stream.flush();
      const left = [...stream.active.values()].map(({ id, retryCount }) => ({ id, retryCount }));
      if (left.length > 0) await this.boss.fail(stream.name, left, { message: 'the service shut down during the job' }).catch(() => undefined);
    }
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
      await this.stopStreams(Math.max(timeoutMs, 1_000) / 2);
      // pg-boss's stop resolves once its workers stopped and what was still active was failed.
      await this.boss.stop({ graceful: true, timeout: Math.max(timeoutMs, 1_000) });
    } finally {
      await this.database.close().catch(() => undefined);
    }
  }
}
