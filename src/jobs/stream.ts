/**
 * Streams of jobs (`defineStream`, src/jobs/queue.ts): a stream runs each job on its
 * own, as soon as it is fetched, while fewer than `maxActive` of its jobs are active in
 * the instance: a slow job holds one place, not a worker and the jobs fetched with it
 * (pg-boss's `work` runs a fetch's jobs together and fetches again once the slowest
 * ended). Jobs that end together are completed in one call. The webhook deliveries run
 * as a stream (src/webhooks/dispatcher.ts).
 */
import type { Job } from 'pg-boss';
import { ensureQueue, type QueueContext } from './boss.js';

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
export interface Stream {
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

/**
 * Creates the queue (if missing) and starts its stream in this instance: a loop that
 * fetches up to `fetchSize` jobs whenever fewer than `maxActive` are running and runs
 * each on its own; the jobs that ended while the previous settling call ran are
 * completed (or failed, for a handler that threw) in the next one. Fetches again at once
 * while it finds jobs, else after the polling interval or a `wake`.
 */
export async function startStream<T extends object>(ctx: QueueContext, def: StreamDefinition<T>): Promise<Stream> {
  await ensureQueue(ctx.boss, def.name, def);

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
      const timer = setTimeout(end, ctx.pollingIntervalSeconds * 1000);
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
      if (done.length > 0) await ctx.boss.complete(def.name, done.map(({ id, retryCount }) => ({ id, retryCount })));
      for (const { job, error } of broken) await ctx.boss.fail(def.name, { id: job.id, retryCount: job.retryCount }, error);
    } catch (err) {
      // Not settled: they stay active until their expiry, then pg-boss retries them
      // and the handler finds its work done (idempotent).
      ctx.noteError(err);
    }
  };
  const flush = () => (settling = settling.then(() => (ended.length > 0 || failed.length > 0 ? settleNow() : undefined)));

  const run = (job: Job<T>) => {
    active.set(job.id, job as Job<object>);
    void def.handler(job.data, ctx.signal).then(
      () => ended.push(job as Job<object>),
      (err: { message?: string; code?: string }) => failed.push({ job: job as Job<object>, error: { message: err?.message ?? String(err), code: err?.code } }),
    ).finally(() => {
      active.delete(job.id);
      void flush();
      wake('room');
    });
  };

  const loop = (async () => {
    while (!ctx.stopping()) {
      // Fetches are of fetchSize jobs (or all the room there is), not one job per job ended.
      const room = def.maxActive - active.size;
      if (room < Math.min(def.fetchSize, def.maxActive)) {
        await nap(true);
        continue;
      }
      const size = Math.min(room, def.fetchSize);
      let jobs: Job<T>[] = [];
      try {
        jobs = await ctx.boss.fetch<T>(def.name, { batchSize: size });
      } catch (err) {
        ctx.noteError(err);
      }
      if (ctx.stopping()) {
        // Fetched while stopping: given back at once, retried by whichever instance runs next.
        if (jobs.length > 0) await ctx.boss.fail(def.name, jobs.map(({ id, retryCount }) => ({ id, retryCount })), { message: 'the service is shutting down' }).catch((err) => ctx.noteError(err));
        break;
      }
      for (const job of jobs) run(job);
      if (jobs.length < size) await nap(false);
    }
  })();
  return { name: def.name, loop, active, wake, flush };
}

/**
 * Ends `streams` within `timeoutMs`: their loops stop fetching, the jobs running get
 * until the deadline (the shutdown signal has told them to stop), what ended is settled
 * and what still runs is failed, so that pg-boss retries it. Call once `ctx.stopping()`.
 */
export async function stopStreams(ctx: QueueContext, streams: Stream[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const stream of streams) stream.wake('jobs');
  await Promise.all(streams.map((s) => s.loop));
  while (streams.some((s) => s.active.size > 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  for (const stream of streams) {
    await stream.flush();
    const left = [...stream.active.values()].map(({ id, retryCount }) => ({ id, retryCount }));
    if (left.length > 0) await ctx.boss.fail(stream.name, left, { message: 'the service shut down during the job' }).catch(() => undefined);
  }
}
