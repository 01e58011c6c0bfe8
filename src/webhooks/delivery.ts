/**
 * The `webhook-delivery` job: one HTTP attempt of one delivery (an event to one
 * endpoint), its record, and what comes next, per the schedule in ./schedule.ts.
 *
 * A job names an attempt number and one delivery or several (DeliveryJob); the jobs of
 * one fetch of a worker are run together (runDeliveryJobs). The attempt's record, the delivery's new state and the job
 * of the next attempt are written in one transaction (shared by the fetch's attempts), guarded by
 * `attempt_count = attempt - 1`: a job run again after that transaction committed (its
 * process died before pg-boss marked it done) finds the attempt made and does nothing,
 * so attempts are never doubled by the queue. An attempt cut short by a crash before
 * that transaction is made again (at least once): receivers deduplicate by
 * `webhook-id`, the event id.
 *
 * Outcomes: 2xx → SUCCEEDED; 410 → FAILED and the endpoint DISABLED (reason GONE; its
 * other pending deliveries CANCELLED); anything else (non-2xx, network error, time-out,
 * refused address) → the next attempt, or FAILED after the last. An attempt interrupted
 * by shutdown is recorded and the next one is due at once (another instance, or this
 * one after its restart, makes it). Recorded attempts also note the endpoint's health
 * (./health.ts: failing too long, it is disabled); an attempt's record keeps the first KiB
 * of the response and when the next attempt is due (`listWebhookDeliveryAttempts`).
 * During a secret rotation's overlap every attempt carries both signatures (./signing.ts).
 *
 * Attempts to one endpoint are bounded by its adaptive limit (./endpointConcurrency.ts):
 * one that waits ENDPOINT_WAIT_MS for a slot is not made but put back in the queue,
 * the same attempt due again after DEFER_MS, and counts nothing against the delivery.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { SealingKeys } from '../kernel/sealing.js';
import type { JobQueue } from '../jobs/queue.js';
import { backgroundReads, backgroundTransaction } from '../kernel/background.js';
import { nextAttemptAt, retryAfterSeconds } from './schedule.js';
import { signalOf, type EndpointConcurrency } from './endpointConcurrency.js';
import { endpointSecret, previousEndpointSecret } from './secrets.js';
import { noteEndpointHealth } from './health.js';
import { sendAttempt, type AttemptResult } from './sender.js';
import { deliveryHeaders, envelopeBody, signerFor, type DeliveryMessage, type Signer } from './signing.js';
import type { UrlPolicy } from './urlPolicy.js';

export const DELIVERY_QUEUE = 'webhook-delivery';

/**
 * Data of a `webhook-delivery` job: attempt `attempt` of the deliveries it names. The
 * relay names up to DELIVERIES_PER_JOB first attempts in one job (`delivery_ids`), so
 * that the queue holds one row per group of deliveries rather than per delivery; a retry
 * and a redelivery name one (`delivery_id`, also the form of every earlier version's jobs).
 */
export type DeliveryJob = { attempt: number } & ({ delivery_id: string } | { delivery_ids: string[] });

/** First attempts per job the relay enqueues (see DeliveryJob). */
export const DELIVERIES_PER_JOB = 16;

/**
 * Longest wait of an attempt for its endpoint's slot. Bounded so that a fetch's jobs,
 * recorded together, end well within their expiry (the time-out + 45 s, ./dispatcher.ts)
 * even when an endpoint's limit has fallen to one slow attempt at a time.
 */
export const ENDPOINT_WAIT_MS = 10_000;

/** Delay before an attempt put back for want of a slot is due again. */
export const DEFER_MS = 1_000;

/** One attempt of one delivery, as a job asks for it. */
interface DeliveryStep {
  delivery_id: string;
  attempt: number;
}

/** The attempts `jobs` ask for, one per delivery named. */
function stepsOf(jobs: DeliveryJob[]): DeliveryStep[] {
  return jobs.flatMap((job) => ('delivery_ids' in job ? job.delivery_ids : [job.delivery_id]).map((delivery_id) => ({ delivery_id, attempt: job.attempt })));
}

export interface DeliveryDeps {
  db: Knex;
  jobs: JobQueue;
  policy: UrlPolicy;
  timeoutMs: number;
  /** Multiplies the retry schedule's delays (WEBHOOK_RETRY_SCALE). */
  retryScale: number;
  /** The keys that open the endpoints' sealed secrets (./secrets.ts). */
  secretKeys: SealingKeys;
  /** This instance's adaptive limits of attempts in flight per endpoint. */
  endpoints: EndpointConcurrency;
  /** An endpoint whose every attempt failed for this long is disabled (WEBHOOK_DISABLE_FAILING_AFTER_HOURS, in ms). */
  disableFailingAfterMs: number;
}

interface DeliveryRow {
  id: string;
  business_id: string;
  status: string;
  attempt_count: number;
  event_id: string;
  code: string;
  data: unknown;
  event_created_at: Date;
  endpoint_id: string;
  url: string;
  secret: string | null;
  secret_sealed: string | null;
  secret_key_version: number | null;
  previous_secret_sealed: string | null;
  previous_secret_key_version: number | null;
  previous_secret_expires_at: Date | null;
  endpoint_status: string;
}

type Outcome = 'SUCCEEDED' | 'RETRY' | 'FAILED' | 'ENDPOINT_GONE';

function outcomeOf(r: AttemptResult, next: Date | null): Outcome {
  if (r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300) return 'SUCCEEDED';
  if (r.statusCode === 410) return 'ENDPOINT_GONE';
  return next ? 'RETRY' : 'FAILED';
}

/** The deliveries `ids` with their event and endpoint, by id (one query). */
async function deliveryRows(db: Knex, ids: string[]): Promise<Map<string, DeliveryRow>> {
  const rows = (await db('webhook_deliveries as d')
    .join('outbox_events as e', 'e.id', 'd.event_id')
    .join('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .whereIn('d.id', ids)
    .select(
      'd.id', 'd.business_id', 'd.status', 'd.attempt_count', 'e.id as event_id', 'e.code', 'e.data', 'e.created_at as event_created_at',
      'w.id as endpoint_id', 'w.url', 'w.secret', 'w.secret_sealed', 'w.secret_key_version', 'w.status as endpoint_status',
      'w.previous_secret_sealed', 'w.previous_secret_key_version', 'w.previous_secret_expires_at',
    )) as DeliveryRow[];
  return new Map(rows.map((r) => [r.id, r]));
}

/** One attempt made, to be recorded. */
interface Attempt {
  job: DeliveryStep;
  row: DeliveryRow;
  result: AttemptResult;
  startedAt: Date;
  next: Date | null;
  outcome: Outcome;
}

/** Endpoints' signing keys, by endpoint and sealed secret (a cache: one dropped is made again). */
const MAX_SIGNERS = 1_000;
const signers = new Map<string, Signer>();

/**
 * The signing keys of `row`'s endpoint, made once per sealed secret (so a rotated secret
 * is a new entry) and kept, at most MAX_SIGNERS, oldest dropped: opening the sealed
 * secret and importing its keys for every delivery cost as much as the rest of signing.
 * Throws what endpointSecret throws (a secret that does not open), and keeps nothing then.
 */
function signerOf(deps: DeliveryDeps, row: DeliveryRow): Signer {
  const cacheKey = `${row.endpoint_id}:${row.secret_key_version}:${row.secret_sealed ?? row.secret}`;
  let signer = signers.get(cacheKey);
  if (!signer) {
    signer = signerFor(endpointSecret(deps.secretKeys, { ...row, id: row.endpoint_id }));
    if (signers.size >= MAX_SIGNERS) signers.delete(signers.keys().next().value!);
    signers.set(cacheKey, signer);
  }
  return signer;
}

/** The signing keys of the previous secret of `row`'s endpoint while a rotation's overlap lasts at `now`, else null (cached like signerOf's). */
function previousSignerOf(deps: DeliveryDeps, row: DeliveryRow, now: Date): Signer | null {
  if (row.previous_secret_expires_at === null || row.previous_secret_expires_at.getTime() <= now.getTime()) return null;
  const cacheKey = `${row.endpoint_id}:previous:${row.previous_secret_key_version}:${row.previous_secret_sealed}`;
  let signer = signers.get(cacheKey);
  if (!signer) {
    try {
      signer = signerFor(previousEndpointSecret(deps.secretKeys, { ...row, id: row.endpoint_id }, now)!);
    } catch {
      return null; // a previous secret that does not open: the current one still signs
    }
    if (signers.size >= MAX_SIGNERS) signers.delete(signers.keys().next().value!);
    signers.set(cacheKey, signer);
  }
  return signer;
}

/** The headers of an attempt at `startedAt`, or null when the endpoint's secret cannot be used for signing. */
function signedHeaders(deps: DeliveryDeps, row: DeliveryRow, message: DeliveryMessage, body: string, startedAt: Date): Record<string, string> | null {
  try {
    return deliveryHeaders(message, body, signerOf(deps, row), startedAt, previousSignerOf(deps, row, startedAt));
  } catch {
    return null;
  }
}

/**
 * Makes the HTTP attempt of `job` for delivery `row` within its endpoint's limit; null
 * when no slot came within ENDPOINT_WAIT_MS (the attempt is to be put back). Never throws.
 */
async function attempt(deps: DeliveryDeps, job: DeliveryStep, row: DeliveryRow, shutdown: AbortSignal): Promise<Attempt | null> {
  const message: DeliveryMessage = {
    eventId: row.event_id, code: row.code, createdAt: row.event_created_at, endpointId: row.endpoint_id, businessId: row.business_id, url: row.url, data: row.data,
  };
  const body = envelopeBody(message);
  const slot = await deps.endpoints.acquire(row.endpoint_id, ENDPOINT_WAIT_MS, shutdown);
  if (!slot) return null;
  const startedAt = new Date();
  // A secret that does not open (its key version is not configured) fails the attempt like one that cannot sign.
  const headers = signedHeaders(deps, row, message, body, startedAt);
  let result: AttemptResult | undefined;
  try {
    result = headers
      ? await sendAttempt(deps.policy, row.url, headers, body, { timeoutMs: deps.timeoutMs, shutdown })
      : { statusCode: null, retryAfter: null, responseBody: null, latencyMs: 0, error: 'the endpoint secret cannot be used for signing', interrupted: false };
  } finally {
    // An attempt not sent, or cut short by shutdown, says nothing about the endpoint.
    slot.release(headers && result && !result.interrupted ? signalOf(result.statusCode, result.error) : 'neutral');
  }
  const finishedAt = new Date();
  const next = result.interrupted ? finishedAt : nextAttemptAt(job.attempt, finishedAt, deps.retryScale, retryAfterSeconds(result.retryAfter));
  return { job, row, result, startedAt, next, outcome: outcomeOf(result, next) };
}

/**
 * Records the attempts `made` in `trx`: each delivery's new state (one UPDATE for all,
 * guarded per delivery by `attempt_count = attempt - 1`), the attempts' rows (one INSERT),
 * then for each attempt recorded the next attempt's job or the endpoint disabled. An
 * attempt whose guard fails (another run recorded it first, or the endpoint went
 * meanwhile) records nothing. The attempts `deferred` get their job again, due after DEFER_MS.
 */
async function record(deps: DeliveryDeps, trx: Knex.Transaction, made: Attempt[], deferred: DeliveryStep[]): Promise<void> {
  if (deferred.length > 0) {
    const startAfter = new Date(Date.now() + DEFER_MS);
    await deps.jobs.sendMany(DELIVERY_QUEUE, deferred.map(({ delivery_id, attempt }) => ({ delivery_id, attempt }) satisfies DeliveryJob), { trx, startAfter });
  }
  if (made.length === 0) return;
  const moves = made.map(({ job, row, result, outcome, next }) => ({
    id: row.id,
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
            completed_at = CASE WHEN m.status = 'PENDING' THEN NULL ELSE CURRENT_TIMESTAMP(3) END,
            updated_at = CURRENT_TIMESTAMP(3)
       FROM jsonb_to_recordset(?::jsonb)
            AS m(id uuid, attempt int, status text, next_attempt_at timestamptz, last_status_code int, last_error text)
      WHERE d.id = m.id AND d.status = 'PENDING' AND d.attempt_count = m.attempt - 1
      RETURNING d.id`,
    [JSON.stringify(moves)],
  );
  // One attempt per delivery moved: a delivery twice in one fetch moved for its first job.
  const moved = new Set(rows.map((r) => r.id));
  const recorded = made.filter((a) => moved.delete(a.row.id));
  if (recorded.length === 0) return;
  await trx('webhook_delivery_attempts').insert(
    recorded.map(({ job, row, result, outcome, startedAt, next }) => ({
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
    })),
  );
  // An attempt cut short by shutdown says nothing about the endpoint's health.
  const judged = recorded.filter(({ result }) => !result.interrupted);
  await noteEndpointHealth(trx, judged.map(({ row, outcome }) => ({ endpointId: row.endpoint_id, succeeded: outcome === 'SUCCEEDED' })), deps.disableFailingAfterMs);
  for (const { job, row, outcome, next } of recorded) {
    if (outcome === 'RETRY') {
      await deps.jobs.send(DELIVERY_QUEUE, { delivery_id: row.id, attempt: job.attempt + 1 } satisfies DeliveryJob, { trx, startAfter: next! });
    }
    if (outcome === 'ENDPOINT_GONE') {
      await trx('webhook_endpoints').where({ id: row.endpoint_id, status: 'ENABLED' }).update({ status: 'DISABLED', disabled_reason: 'GONE', disabled_at: trx.fn.now(3) });
      await trx('webhook_deliveries')
        .where({ endpoint_id: row.endpoint_id, status: 'PENDING' })
        .update({ status: 'CANCELLED', next_attempt_at: null, completed_at: trx.fn.now(3), updated_at: trx.fn.now(3) });
    }
  }
}

/**
 * Runs the `webhook-delivery` jobs of one fetch (see the module comment): their
 * deliveries read in one query, the attempts made side by side, and every attempt
 * recorded in one transaction in the instance's background lane (src/kernel/background.ts;
 * one commit for the fetch instead of one per delivery).
 * An attempt made already, or of a delivery no longer PENDING, is not made again; a
 * delivery whose endpoint is no longer ENABLED is CANCELLED.
 */
export async function runDeliveryJobs(deps: DeliveryDeps, jobs: DeliveryJob[], shutdown: AbortSignal): Promise<void> {
  const { db } = deps;
  const steps = stepsOf(jobs);
  const rows = await deliveryRows(backgroundReads(db), steps.map((j) => j.delivery_id));
  const due = steps.filter((job) => {
    const row = rows.get(job.delivery_id);
    return row && row.status === 'PENDING' && row.attempt_count < job.attempt; // else done, or this attempt was made
  });
  const cancelled = due.filter((job) => rows.get(job.delivery_id)!.endpoint_status !== 'ENABLED').map((job) => job.delivery_id);
  if (cancelled.length > 0) {
    await db('webhook_deliveries').whereIn('id', cancelled).where({ status: 'PENDING' }).update({ status: 'CANCELLED', next_attempt_at: null, completed_at: db.fn.now(3), updated_at: db.fn.now(3) });
  }
  const toMake = due.filter((job) => !cancelled.includes(job.delivery_id));
  // One attempt started per turn of the event loop: started all at once, a fetch's
  // signing and sending ran as one long task, and API requests waited behind it.
  const started: Promise<Attempt | null>[] = [];
  for (const job of toMake) {
    started.push(attempt(deps, job, rows.get(job.delivery_id)!, shutdown));
    await new Promise((resolve) => setImmediate(resolve));
  }
  const results = await Promise.all(started);
  const made = results.filter((a): a is Attempt => a !== null);
  const deferred = toMake.filter((_, i) => results[i] === null);
  if (made.length === 0 && deferred.length === 0) return;
  await backgroundTransaction(db, (trx) => record(deps, trx, made, deferred));
}
