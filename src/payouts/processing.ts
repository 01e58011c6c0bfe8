/**
 * Payout processing on the durable job queue (src/jobs/queue.ts, queue
 * `payout-processing`), handing payouts to the payout rail (src/payouts/rail.ts).
 * Jobs are worked in batches (one fetch of a worker: runPayoutJobs), each kind of step
 * of one business in one transaction (`payout_move_batch`), run in the instance's
 * background lane (src/kernel/scheduling/background.ts).
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
import { backgroundRead, backgroundTransaction } from '../kernel/scheduling/background.js';
import { chunks } from '../kernel/chunks.js';
import { inBusinessTurn } from '../kernel/scheduling/turns.js';
import { RailSubmissionFailed, railPayoutQuery, type PayoutRail, type RailDecision, type RailPayout } from './rail.js';
import { payoutMoves, type PayoutMoveRequest } from './moves.js';
import type { PayoutState } from './states.js';

export const PAYOUT_QUEUE = 'payout-processing';

/**
 * The turn (src/kernel/scheduling/turns.ts) of the work that locks a business's payout and in-transit
 * accounts for many payouts at once: bulk payout creation and the settlement of a batch.
 */
export const PAYOUT_ACCOUNTS_TURN = 'payout-accounts';

/**
 * One job: the step to take for one payout of a business (`payout_id`: a payout created
 * alone, a resubmission to the rail, and every job of earlier versions) or for several
 * (`payout_ids`, up to PAYOUTS_PER_JOB: the payouts of a bulk payout and the SETTLE steps a
 * batch of submissions makes), so that the queue holds one row per group of payouts.
 */
export type PayoutJob = {
  business_id: string;
  step: 'SUBMIT' | 'SETTLE';
  /** SETTLE: which submission to the rail this is (1 when absent). */
  attempt?: number;
} & ({ payout_id: string } | { payout_ids: string[] });

/** One step of one payout, as a job asks for it. */
type PayoutStep = { payout_id: string; business_id: string; step: PayoutJob['step']; attempt?: number };

/** Payouts per job when a step is enqueued for many (see PayoutJob). */
export const PAYOUTS_PER_JOB = 32;

/** Jobs taking `step` for each of `payoutIds` of business `businessId`, PAYOUTS_PER_JOB per job. */
export function payoutJobs(businessId: string, step: PayoutJob['step'], payoutIds: string[]): PayoutJob[] {
  return chunks(payoutIds, PAYOUTS_PER_JOB).map((payout_ids) => ({ business_id: businessId, step, payout_ids }));
}

/** The steps `jobs` ask for, one per payout named. */
function stepsOf(jobs: PayoutJob[]): PayoutStep[] {
  return jobs.flatMap(({ business_id, step, attempt, ...named }) =>
    ('payout_ids' in named ? named.payout_ids : [named.payout_id]).map((payout_id) => ({ payout_id, business_id, step, attempt })),
  );
}

export interface PayoutProcessingDeps {
  db: Knex;
  jobs: JobQueue;
  /** Where payouts are settled. */
  rail: PayoutRail;
}

/** The payouts `ids` of the business as the rail sees them, by id (one query). */
async function railPayoutsById(db: Knex, businessId: string, ids: string[]): Promise<Map<string, RailPayout & { status: PayoutState }>> {
  const rows: (RailPayout & { status: PayoutState })[] = await railPayoutQuery(db, businessId).whereIn('p.id', ids);
  return new Map(rows.map((r) => [r.payout_id, r]));
}

/**
 * Runs the payout jobs of one fetch (see the module comment), business by business (a
 * batch never spans businesses): every SUBMIT whose payout is PENDING in one transaction
 * (`payout_move_batch`) with the SETTLE jobs they make; every SETTLE whose payout is
 * PROCESSING handed to the rail side by side, and the outcomes it answered at once applied
 * in one transaction. A step the payout has passed is a no-op. Throwing fails the fetch's
 * jobs, which pg-boss retries, each finding its payout where the steps that committed left it.
 */
export async function runPayoutJobs(deps: PayoutProcessingDeps, batch: PayoutJob[], signal: AbortSignal): Promise<void> {
  const businesses = new Map<string, PayoutStep[]>();
  for (const step of stepsOf(batch)) {
    const list = businesses.get(step.business_id);
    if (list) list.push(step);
    else businesses.set(step.business_id, [step]);
  }
  for (const [businessId, list] of businesses) await runBusinessSteps(deps, businessId, list, signal);
}

async function runBusinessSteps(deps: PayoutProcessingDeps, businessId: string, list: PayoutStep[], signal: AbortSignal): Promise<void> {
  const { db, jobs, rail } = deps;
  const payouts = await backgroundRead(db, (trx) => railPayoutsById(trx, businessId, list.map((j) => j.payout_id)));
  const queue = rail.queue?.name ?? PAYOUT_QUEUE;

  const submits = list.filter((j) => {
    const payout = payouts.get(j.payout_id);
    return j.step === 'SUBMIT' && payout?.status === 'PENDING' && rail.submits(payout.amount);
  });
  if (submits.length > 0) {
    await backgroundTransaction(db, async (trx) => {
      const results = await payoutMoves(trx, businessId, submits.map((j) => ({ payoutId: j.payout_id, event: 'SUBMIT' as const })));
      const moved = submits.filter((_, i) => !('refusal' in results[i])).map((j) => j.payout_id);
      const startAfter = new Date(Date.now() + rail.submitAfterMs);
      await jobs.sendMany(queue, payoutJobs(businessId, 'SETTLE', moved), { trx, businessId, startAfter });
    });
  }

  const decided: PayoutMoveRequest[] = [];
  const settles = list.filter((j) => j.step === 'SETTLE' && payouts.get(j.payout_id)?.status === 'PROCESSING');
  await Promise.all(
    settles.map(async (job) => {
      const { status: _, ...submitted } = payouts.get(job.payout_id)!;
      let decision: RailDecision;
      try {
        decision = await rail.submit(submitted, signal);
      } catch (err) {
        if (!(err instanceof RailSubmissionFailed)) throw err;
        const attempt = job.attempt ?? 1;
        const startAfter = new Date(Date.now() + rail.retryDelayMs(attempt));
        await jobs.send(queue, { business_id: businessId, step: 'SETTLE', payout_id: job.payout_id, attempt: attempt + 1 } satisfies PayoutJob, { startAfter });
        return;
      }
      if (decision) decided.push({ payoutId: job.payout_id, event: decision.event, failureCode: decision.event === 'FAIL' ? decision.failureCode : undefined });
    }),
  );
  // Urgent: a settlement is a short step under the job's time limit, not to wait behind bulk creations.
  if (decided.length > 0) await inBusinessTurn(db, businessId, PAYOUT_ACCOUNTS_TURN, () => backgroundTransaction(db, (trx) => payoutMoves(trx, businessId, decided)), { urgent: true });
}

/** Defines the queues (the rail's too, when it has one) and starts this instance's workers (at start, src/server.ts). */
export async function startPayoutProcessing(deps: PayoutProcessingDeps): Promise<void> {
  await deps.jobs.defineQueue<PayoutJob>({
    name: PAYOUT_QUEUE,
    // As many workers as webhook deliveries have by default (WEBHOOK_CONCURRENCY): both
    // compete for the database, and payouts are final only once their steps get their share.
    concurrency: 4,
    // Up to 8 jobs per fetch (up to 8 × PAYOUTS_PER_JOB steps), applied in one transaction
    // per kind of step (runPayoutJobs): a bulk payout's 1,000 payouts are worked through in
    // seconds, not one step per poll. Each step is still its own move under its payout's
    // row lock.
    batchSize: 8,
    // A step is one short transaction, so a job active for 10 s belongs to an instance
    // that died; with the queue's maintenance every 5 s (JOB_MAINTENANCE_INTERVAL_SECONDS)
    // and a retry 1 s later, another instance takes it within about 22 s of the crash
    // (test/payouts/payoutRestart.test.ts). 300 retries 1 s apart ride out a database outage of
    // five minutes.
    retryLimit: 300,
    retryDelaySeconds: 1,
    expireInSeconds: 10,
    batchHandler: (batch, signal) => runPayoutJobs(deps, batch, signal),
  });
  if (deps.rail.queue) await deps.jobs.defineQueue<PayoutJob>({ ...deps.rail.queue, batchHandler: (batch, signal) => runPayoutJobs(deps, batch, signal) });
}
