/**
 * Queues worked by pg-boss's own workers (`defineQueue`, src/jobs/queue.ts): each
 * instance runs `concurrency` workers of a queue, each fetching up to `batchSize` jobs
 * and running them side by side (or together, with a `batchHandler`), then fetching again
 * once the slowest ended. A job whose handler throws is retried by pg-boss after
 * `retryDelaySeconds`, up to `retryLimit` times.
 */
import type { Job } from 'pg-boss';
import { ensureQueue, type QueueContext } from './boss.js';

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

/**
 * Creates the queue (if missing) and starts `concurrency` workers for it in this
 * instance; returns their pg-boss worker ids (to wake them).
 */
export async function startWorkers<T extends object>(ctx: QueueContext, def: QueueDefinition<T>): Promise<string[]> {
  await ensureQueue(ctx.boss, def.name, def);
  const ids: string[] = [];
  for (let i = 0; i < def.concurrency; i++) {
    let id = '';
    id = await ctx.boss.work<T>(def.name, { pollingIntervalSeconds: ctx.pollingIntervalSeconds, batchSize: def.batchSize ?? 1 }, async (jobs) => {
      await runBatch(ctx, def, jobs);
      // Jobs were found: look for more at once (pg-boss would wait out the polling interval).
      if (!ctx.stopping()) ctx.boss.notifyWorker(id);
    });
    ids.push(id);
  }
  return ids;
}

/**
 * Runs the jobs of one fetch side by side. One job whose handler throws is failed on its
 * own (pg-boss retries it after its delay); pg-boss then completes the batch, which
 * leaves a failed job failed (it completes active jobs only).
 */
async function runBatch<T extends object>(ctx: QueueContext, def: QueueDefinition<T>, jobs: Job<T>[]): Promise<void> {
  if (def.batchHandler) {
    await def.batchHandler(jobs.map((job) => job.data), ctx.signal);
    return;
  }
  const handler = def.handler!;
  if (jobs.length === 1) {
    await handler(jobs[0].data, ctx.signal);
    return;
  }
  await Promise.all(
    jobs.map(async (job) => {
      try {
        await handler(job.data, ctx.signal);
      } catch (err) {
        const e = err as { message?: string; code?: string };
        await ctx.boss.fail(def.name, job.id, { message: e.message ?? String(err), code: e.code });
      }
    }),
  );
}
