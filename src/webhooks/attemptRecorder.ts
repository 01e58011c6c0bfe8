/**
 * Records the attempts of `webhook-delivery` jobs (./delivery.ts makes them): the
 * attempts that ended while the recorder's previous transaction ran are written together,
 * one transaction per business (a group commit, in the instance's background lane,
 * src/kernel/scheduling/background.ts):
 * each attempt's record, its delivery's new state and the job of its next attempt,
 * guarded by `attempt_count = attempt - 1`: a job run again after that transaction
 * committed (its process died before the job was completed) finds the attempt made and
 * does nothing, so attempts are never doubled by the queue.
 *
 * Outcomes: 2xx → SUCCEEDED; 410 → FAILED and the endpoint DISABLED (reason GONE; its
 * other pending deliveries CANCELLED); anything else → the next attempt, or FAILED after
 * the last. Recorded attempts also note the endpoint's health (./health.ts). Each record keeps
 * the request as sent (the bearer token left out), the response's headers (sender.ts bounds
 * them), its trigger and number (attemptNumbers), and the event's code and payout id, which the
 * delivery log filters by (./attempts.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { JobQueue } from '../jobs/queue.js';
import { backgroundTransaction } from '../kernel/scheduling/background.js';
import { DELIVERY_QUEUE, groupedJobs, type DeliveryStep } from './deliveryJobs.js';
import type { DeliveryRow } from './deliveryReader.js';
import { noteEndpointHealth } from './health.js';
import type { AttemptResult } from './sender.js';

/** How an attempt ended, for its delivery. */
export type Outcome = 'SUCCEEDED' | 'RETRY' | 'FAILED' | 'ENDPOINT_GONE';

export function outcomeOf(r: AttemptResult, next: Date | null): Outcome {
  if (r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300) return 'SUCCEEDED';
  if (r.statusCode === 410) return 'ENDPOINT_GONE';
  return next ? 'RETRY' : 'FAILED';
}

/** One attempt made, to be recorded. */
export interface Attempt {
  job: DeliveryStep;
  row: DeliveryRow;
  result: AttemptResult;
  startedAt: Date;
  next: Date | null;
  outcome: Outcome;
  /** The request as sent (its headers and body); null when none was (the secret could not sign). */
  sent: { headers: Record<string, string>; body: string } | null;
}

/** Characters of a request body kept with its attempt (the document's maxLength). */
export const REQUEST_BODY_CHARS = 8192;

/** A request's headers as kept: the bearer token, a credential for five minutes, is left out. */
function keptRequestHeaders(headers: Record<string, string>): Record<string, string> {
  return { ...headers, ...(headers.authorization ? { authorization: 'Bearer (not kept)' } : {}) };
}

/** The event's `data.payout_id` when it is a UUID (the payout events'), else null. */
function payoutIdOf(data: unknown): string | null {
  const id = (data as { payout_id?: unknown } | null)?.payout_id;
  return typeof id === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id) ? id : null;
}

/**
 * Each attempt's number among all the attempts of its event to its endpoint: an attempt of
 * the event's own delivery (kind EVENT) is its `attempt`; one of a later delivery (a resend,
 * a recovery, a test) follows every attempt of that event to that endpoint recorded before
 * it (one read of their counts, through the (endpoint_id, event_id, …) index).
 */
async function attemptNumbers(trx: Knex.Transaction, businessId: string, recorded: Attempt[]): Promise<number[]> {
  const later = recorded.filter((a) => a.row.kind !== 'EVENT');
  const counts = new Map<string, number>();
  if (later.length > 0) {
    const { rows } = await trx.raw<{ rows: { endpoint_id: string; event_id: string; n: number }[] }>(
      `SELECT endpoint_id, event_id, count(*)::int AS n FROM webhook_delivery_attempts
        WHERE business_id = ? AND endpoint_id = ANY(?) AND event_id = ANY(?) GROUP BY endpoint_id, event_id`,
      [businessId, [...new Set(later.map((a) => a.row.endpoint_id))], [...new Set(later.map((a) => a.row.event_id))]],
    );
    for (const r of rows) counts.set(`${r.endpoint_id}/${r.event_id}`, r.n);
  }
  return recorded.map((a) => {
    if (a.row.kind === 'EVENT') return a.job.attempt;
    const key = `${a.row.endpoint_id}/${a.row.event_id}`;
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    return n;
  });
}

/** An attempt not made for want of its endpoint's slot, due again at `due`. */
export interface Deferral {
  step: DeliveryStep;
  businessId: string;
  endpointId: string;
  due: Date;
}

/**
 * Records the attempts `made` of business `businessId` (all of them its) in `trx`: each delivery's new state (one UPDATE for all,
 * guarded per delivery by `attempt_count = attempt - 1`), the attempts' rows (one INSERT),
 * then the endpoints' health (noteEndpointHealth: one failing for `disableFailingAfterMs` is
 * disabled), the next attempts' jobs (grouped, groupedJobs) and the endpoints gone disabled. An
 * attempt whose guard fails (another run recorded it first, or the endpoint went
 * meanwhile) records nothing. The attempts `deferred` get their jobs again, at their due time.
 */
async function record(jobs: JobQueue, trx: Knex.Transaction, businessId: string, made: Attempt[], deferred: Deferral[], disableFailingAfterMs: number): Promise<void> {
  if (deferred.length > 0) {
    const putBack = groupedJobs(deferred.map(({ step, businessId, endpointId, due }) => ({ deliveryId: step.delivery_id, businessId, endpointId, attempt: step.attempt, due })));
    await jobs.sendEach(DELIVERY_QUEUE, putBack, { trx, businessId });
  }
  if (made.length === 0) return;
  const moves = made.map(({ job, row, result, outcome, next }) => ({
    id: row.id,
    business_id: row.business_id,
    attempt: job.attempt,
    status: outcome === 'RETRY' ? 'PENDING' : outcome === 'SUCCEEDED' ? 'SUCCEEDED' : 'FAILED',
    next_attempt_at: outcome === 'RETRY' ? next!.toISOString() : null,
    last_status_code: result.statusCode,
    last_error: result.error,
  }));
  const { rows } = await trx.raw<{ rows: { id: string }[] }>(
    `UPDATE webhook_deliveries d
        SET attempt_count = m.attempt, status = m.status, next_attempt_at = m.next_attempt_at,
            last_status_code = m.last_status_code, last_error = m.last_error,
            completed_at = CASE WHEN m.status = 'PENDING' THEN NULL::timestamptz ELSE ? END,
            updated_at = CURRENT_TIMESTAMP(3)
       FROM jsonb_to_recordset(?::jsonb)
            AS m(id uuid, business_id uuid, attempt int, status text, next_attempt_at timestamptz, last_status_code int, last_error text)
      WHERE d.business_id = ? AND d.id = m.id AND d.business_id = m.business_id AND d.status = 'PENDING' AND d.attempt_count = m.attempt - 1
      RETURNING d.id`,
    // The time as a value (typed by its column: no cast): on Citus a row's CASE may call no
    // function that is not immutable.
    [new Date(), JSON.stringify(moves), businessId],
  );
  // One attempt per delivery moved: a delivery twice in one fetch moved for its first job.
  const moved = new Set(rows.map((r) => r.id));
  const recorded = made.filter((a) => moved.delete(a.row.id));
  if (recorded.length === 0) return;
  const numbers = await attemptNumbers(trx, businessId, recorded);
  await trx('webhook_delivery_attempts').insert(
    recorded.map(({ job, row, result, outcome, startedAt, next, sent }, i) => ({
      id: randomUUID(),
      business_id: row.business_id,
      delivery_id: row.id,
      event_id: row.event_id,
      endpoint_id: row.endpoint_id,
      attempt: job.attempt,
      outcome,
      status_code: result.statusCode,
      latency_ms: result.latencyMs,
      error: result.error,
      started_at: startedAt,
      response_body: result.responseBody,
      next_attempt_at: outcome === 'RETRY' ? next : null,
      trigger: row.kind === 'EVENT' ? 'AUTOMATIC' : 'MANUAL',
      number: numbers[i],
      event_code: row.code,
      payout_id: payoutIdOf(row.data),
      request_headers: sent ? JSON.stringify(keptRequestHeaders(sent.headers)) : null,
      request_body: sent ? sent.body.slice(0, REQUEST_BODY_CHARS) : null,
      response_headers: result.responseHeaders ? JSON.stringify(result.responseHeaders) : null,
    })),
  );
  // An attempt cut short by shutdown says nothing about the endpoint's health.
  const judged = recorded.filter(({ result }) => !result.interrupted);
  await noteEndpointHealth(trx, judged.map(({ row, outcome }) => ({ businessId: row.business_id, endpointId: row.endpoint_id, succeeded: outcome === 'SUCCEEDED' })), disableFailingAfterMs);
  const retries = recorded.filter((a) => a.outcome === 'RETRY');
  const retryJobs = groupedJobs(retries.map(({ job, row, next }) => ({ deliveryId: row.id, businessId: row.business_id, endpointId: row.endpoint_id, attempt: job.attempt + 1, due: next! })));
  await jobs.sendEach(DELIVERY_QUEUE, retryJobs, { trx, businessId });
  for (const { row, outcome } of recorded) {
    if (outcome === 'ENDPOINT_GONE') {
      await trx('webhook_endpoints').where({ id: row.endpoint_id, business_id: row.business_id, status: 'ENABLED' }).update({ status: 'DISABLED', disabled_reason: 'GONE', disabled_at: trx.fn.now(3) });
      await trx('webhook_deliveries')
        .where({ endpoint_id: row.endpoint_id, business_id: row.business_id, status: 'PENDING' })
        .update({ status: 'CANCELLED', next_attempt_at: null, completed_at: trx.fn.now(3), updated_at: trx.fn.now(3) });
    }
  }
}

/**
 * Records attempts for the jobs of one instance (see the module comment): what `add`
 * is given while a recording transaction runs (or waits for the background lane) is
 * written together in the next round, a transaction per business. One per instance.
 */
export class AttemptRecorder {
  private pending: { made: Attempt[]; deferred: Deferral[]; resolve(): void; reject(err: unknown): void }[] = [];
  private writing = false;

  constructor(private readonly deps: { db: Knex; jobs: JobQueue; disableFailingAfterMs: number }) {}

  /** Resolves once `made` and `deferred` are committed; rejects as their transaction does (then their jobs are retried). */
  add(made: Attempt[], deferred: Deferral[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ made, deferred, resolve, reject });
      if (!this.writing) void this.write();
    });
  }

  private async write(): Promise<void> {
    this.writing = true;
    try {
      while (this.pending.length > 0) {
        const round = this.pending.splice(0);
        // One transaction per business: distributed by business (docs/scale-out.md), a
        // transaction that wrote two businesses' rows would span two nodes.
        const groups = new Map<string, { made: Attempt[]; deferred: Deferral[] }>();
        const groupOf = (businessId: string) => {
          let group = groups.get(businessId);
          if (!group) groups.set(businessId, (group = { made: [], deferred: [] }));
          return group;
        };
        for (const p of round) {
          for (const a of p.made) groupOf(a.row.business_id).made.push(a);
          for (const d of p.deferred) groupOf(d.businessId).deferred.push(d);
        }
        const failed = new Map<string, unknown>();
        for (const [businessId, { made, deferred }] of groups) {
          try {
            await backgroundTransaction(this.deps.db, (trx) => record(this.deps.jobs, trx, businessId, made, deferred, this.deps.disableFailingAfterMs), 'deliveries');
          } catch (err) {
            failed.set(businessId, err);
          }
        }
        for (const p of round) {
          const businesses = [...p.made.map((a) => a.row.business_id), ...p.deferred.map((d) => d.businessId)];
          const failedBusiness = businesses.find((b) => failed.has(b));
          if (failedBusiness === undefined) p.resolve();
          else p.reject(failed.get(failedBusiness));
        }
      }
    } finally {
      this.writing = false;
    }
  }
}
