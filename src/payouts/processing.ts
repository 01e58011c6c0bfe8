/**
 * Payout processing on the durable job queue (src/jobs/queue.ts, queue
 * `payout-processing`), handing payouts to the payout rail (src/payouts/rail.ts).
 * Creation enqueues SUBMIT in its own transaction; SUBMIT moves PENDING → PROCESSING
 * and, in the same transaction, enqueues SETTLE (on the rail's own queue when it has
 * one, due `rail.submitAfterMs` later); SETTLE hands the payout to the rail and applies
 * the outcome it answers at once (the sandbox rail's), or leaves the payout PROCESSING
 * for the rail's signed callback (src/payouts/railCallbacks.ts). A submission the rail
 * did not take is made again by a new SETTLE job (attempt + 1) after the rail's retry
 * delay, for as long as the payout is PROCESSING.
 *
 * At least once, each transition once: a job only exists if the step before it
 * committed, and every step is `payout_move`, guarded by the payout's state under
 * its row lock, so a job run again (retry, restart, another instance) finds the
 * payout moved on and does nothing. A SETTLE run again hands the payout to the rail
 * again, which deduplicates by payout id.
 */
import type { Knex } from 'knex';
import type { JobQueue } from '../jobs/queue.js';
import { RailSubmissionFailed, railPayout, type PayoutRail, type RailDecision } from './rail.js';
import { payoutMove } from './moves.js';

export const PAYOUT_QUEUE = 'payout-processing';

/** One job: the step to take for a payout. */
export interface PayoutJob {
  payout_id: string;
  business_id: string;
  step: 'SUBMIT' | 'SETTLE';
  /** SETTLE: which submission to the rail this is (1 when absent). */
  attempt?: number;
}

export interface PayoutProcessingDeps {
  db: Knex;
  jobs: JobQueue;
  /** Where payouts are settled. */
  rail: PayoutRail;
}

/** Runs one payout job (see the module comment); a step the payout has passed is a no-op. */
export async function runPayoutJob(deps: PayoutProcessingDeps, job: PayoutJob, signal: AbortSignal): Promise<void> {
  const { db, jobs, rail } = deps;
  const payout = await railPayout(db, job.business_id, job.payout_id);
  if (!payout) return;
  if (job.step === 'SUBMIT') {
    if (payout.status !== 'PENDING' || !rail.submits(payout.amount)) return;
    const queue = rail.queue?.name ?? PAYOUT_QUEUE;
    await db.transaction(async (trx) => {
      const moved = await payoutMove(trx, job.business_id, job.payout_id, 'SUBMIT');
      if ('refusal' in moved) return;
      const startAfter = new Date(Date.now() + rail.submitAfterMs);
      await jobs.send(queue, { ...job, step: 'SETTLE' } satisfies PayoutJob, { trx, startAfter });
    });
    if (rail.submitAfterMs === 0) jobs.wake(queue);
    return;
  }
  if (payout.status !== 'PROCESSING') return;
  const { status: _, ...submitted } = payout;
  let decision: RailDecision;
  try {
    decision = await rail.submit(submitted, signal);
  } catch (err) {
    if (!(err instanceof RailSubmissionFailed)) throw err;
    const attempt = job.attempt ?? 1;
    const startAfter = new Date(Date.now() + rail.retryDelayMs(attempt));
    await jobs.send(rail.queue?.name ?? PAYOUT_QUEUE, { ...job, attempt: attempt + 1 } satisfies PayoutJob, { startAfter });
    return;
  }
  if (decision) await payoutMove(db, job.business_id, job.payout_id, decision.event, decision.event === 'FAIL' ? decision.failureCode : undefined);
}

/** Defines the queues (the rail's too, when it has one) and starts this instance's workers (at start, src/server.ts). */
export async function startPayoutProcessing(deps: PayoutProcessingDeps): Promise<void> {
  await deps.jobs.defineQueue<PayoutJob>({
    name: PAYOUT_QUEUE,
    concurrency: 2,
    // A step is one short transaction, so a job active for 10 s belongs to an instance
    // that died; with the queue's maintenance every 5 s (JOB_MAINTENANCE_INTERVAL_SECONDS)
    // and a retry 1 s later, another instance takes it within about 22 s of the crash
    // (test/payoutRestart.test.ts). 300 retries 1 s apart ride out a database outage of
    // five minutes.
    retryLimit: 300,
    retryDelaySeconds: 1,
    expireInSeconds: 10,
    handler: (data, signal) => runPayoutJob(deps, data, signal),
  });
  if (deps.rail.queue) await deps.jobs.defineQueue<PayoutJob>({ ...deps.rail.queue, handler: (data, signal) => runPayoutJob(deps, data, signal) });
}
