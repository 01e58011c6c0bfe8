/**
 * Payout processing on the durable job queue (src/jobs/queue.ts, queue
 * `payout-processing`). Creation enqueues SUBMIT in its own transaction; SUBMIT
 * moves PENDING → PROCESSING and enqueues SETTLE (due after `processingMs`) in the
 * same transaction; SETTLE applies the automatic outcome (./states.ts).
 *
 * At least once, each transition once: a job only exists if the step before it
 * committed, and every step is `payout_move`, guarded by the payout's state under
 * its row lock, so a job run again (retry, restart, another instance) finds the
 * payout moved on and does nothing.
 */
import type { Knex } from 'knex';
import type { JobQueue } from '../jobs/queue.js';
import { payoutMove } from './moves.js';
import { automaticOutcome } from './states.js';

export const PAYOUT_QUEUE = 'payout-processing';

/** One job: the step to take for a payout. */
export interface PayoutJob {
  payout_id: string;
  business_id: string;
  step: 'SUBMIT' | 'SETTLE';
}

export interface PayoutProcessingDeps {
  db: Knex;
  jobs: JobQueue;
  /** The sandbox's amount rule applies (otherwise every payout completes). */
  sandbox: boolean;
  /** How long a payout stays PROCESSING before SETTLE. */
  processingMs: number;
}

/** Runs one payout job (see the module comment); a step the payout has passed is a no-op. */
export async function runPayoutJob(deps: PayoutProcessingDeps, job: PayoutJob): Promise<void> {
  const { db, jobs } = deps;
  const payout = await db('payouts').where({ id: job.payout_id, business_id: job.business_id }).first('amount', 'status');
  if (!payout) return;
  const outcome = automaticOutcome(payout.amount, deps.sandbox);
  if (job.step === 'SUBMIT') {
    if (payout.status !== 'PENDING' || ('hold' in outcome && outcome.hold === 'PENDING')) return;
    await db.transaction(async (trx) => {
      const moved = await payoutMove(trx, job.business_id, job.payout_id, 'SUBMIT');
      if ('refusal' in moved || 'hold' in outcome) return;
      const startAfter = new Date(Date.now() + deps.processingMs);
      await jobs.send(PAYOUT_QUEUE, { ...job, step: 'SETTLE' } satisfies PayoutJob, { trx, startAfter });
    });
    return;
  }
  if (payout.status !== 'PROCESSING' || 'hold' in outcome) return;
  await payoutMove(db, job.business_id, job.payout_id, outcome.event, outcome.event === 'FAIL' ? outcome.failureCode : undefined);
}

/** Defines the queue and starts this instance's workers (at start, src/server.ts). */
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
    handler: (data) => runPayoutJob(deps, data),
  });
}
