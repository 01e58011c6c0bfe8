/**
 * The `webhook-delivery` job: one HTTP attempt of one delivery (an event to one
 * endpoint), its record, and what comes next, per the schedule in ./schedule.ts.
 *
 * A job names an attempt number and one delivery or several of one endpoint
 * (DeliveryJob). Jobs run each on its own (a stream of the job queue, src/jobs/queue.ts),
 * and within a job each attempt is recorded as soon as it ends: an attempt waits for no
 * other, so an endpoint that fails slowly (a host that does not resolve, a receiver that
 * never answers until the time-out) delays its own deliveries only.
 *
 * Records: the AttemptRecorder writes the attempts that ended while its previous
 * transaction ran in one transaction (a group commit, in the instance's background lane,
 * src/kernel/scheduling/background.ts): each attempt's record, its delivery's new state and the job
 * of its next attempt, guarded by `attempt_count = attempt - 1`: a job run again after that
 * transaction committed (its process died before the job was completed) finds the
 * attempt made and does nothing, so attempts are never doubled by the queue. An attempt
 * cut short by a crash before that transaction is made again (at least once): receivers
 * deduplicate by `webhook-id`, the event id. A job ends once all its attempts are recorded.
 *
 * Outcomes: 2xx → SUCCEEDED; 410 → FAILED and the endpoint DISABLED (reason GONE; its
 * other pending deliveries CANCELLED); anything else (non-2xx, network error, time-out,
 * refused address) → the next attempt, or FAILED after the last. An attempt interrupted
 * by shutdown is recorded and the next one is due at once (another instance, or this
 * one after its restart, makes it). Recorded attempts also note the endpoint's health
 * (./health.ts: failing too long, it is disabled); an attempt's record keeps the request as
 * sent, the response's headers and first KiB, and when the next attempt is due
 * (`listWebhookDeliveryAttempts`, ./attemptRecorder.ts).
 * During a secret rotation's overlap every attempt carries both signatures (./signing.ts).
 *
 * Attempts to one endpoint are bounded by its adaptive limit (./endpointConcurrency.ts):
 * one that gets no slot within ENDPOINT_WAIT_MS (or would not) is not made but put back
 * in the queue, the same attempt due again after the endpoint's `deferMs`, and counts
 * nothing against the delivery.
 */
import type { Knex } from 'knex';
import type { SealingKeys } from '../kernel/secrets/sealing.js';
import type { JobQueue } from '../jobs/queue.js';
import { nextAttemptAt, retryAfterSeconds } from './schedule.js';
import { signalOf, type EndpointConcurrency } from './endpointConcurrency.js';
import { endpointSecret, previousEndpointSecret } from './secrets.js';
import { sendAttempt, type AttemptResult } from './sender.js';
import { deliveryHeaders, envelopeBody, signerFor, type DeliveryMessage, type Signer } from './signing.js';
import type { ApiVersioning } from '../kernel/versioning/versionChange.js';
import type { UrlPolicy } from './urlPolicy.js';
import { outcomeOf, type Attempt, type AttemptRecorder } from './attemptRecorder.js';
import { stepsOf, type DeliveryJob, type DeliveryStep } from './deliveryJobs.js';
import type { DeliveryReader, DeliveryRow } from './deliveryReader.js';

/**
 * Longest wait of an attempt for its endpoint's slot. Short: a waiting attempt holds its
 * job's place among the jobs an instance runs at once (./dispatcher.ts), and an endpoint
 * with a backlog longer than this is better served by the queue (its attempts put back,
 * due again when its slots are expected free) than by jobs waiting in the instance.
 */
export const ENDPOINT_WAIT_MS = 1_000;

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
  /** This instance's recorder of attempts (one per instance, shared by its jobs). */
  recorder: AttemptRecorder;
  /** This instance's reader of deliveries (one per instance, shared by its jobs). */
  reader: DeliveryReader;
  /** The versions and version changes events are rendered with (API_VERSIONING but in a test build). */
  versioning: ApiVersioning;
}

/** Endpoints' signing keys, by endpoint and sealed secret (a cache: one dropped is made again). */
const MAX_SIGNERS = 1_000;
const signers = new Map<string, Signer>();

/**
 * The signing keys of one sealed secret, `cacheKey` naming it (endpoint, which secret, key
 * version, sealed value: a rotated secret is a new entry), made once by `open` and kept,
 * at most MAX_SIGNERS, oldest dropped: opening the sealed secret and importing its keys
 * for every delivery cost as much as the rest of signing. Throws what `open` throws (a
 * secret that does not open), and keeps nothing then.
 */
function signer(cacheKey: string, open: () => string): Signer {
  let made = signers.get(cacheKey);
  if (!made) {
    made = signerFor(open());
    if (signers.size >= MAX_SIGNERS) signers.delete(signers.keys().next().value!);
    signers.set(cacheKey, made);
  }
  return made;
}

/**
 * The signers of `row`'s endpoint at `now`: its secret's, and its previous secret's while a
 * rotation's overlap lasts (else null; also when it does not open: the current one still
 * signs). Throws when the current secret does not open.
 */
function signersOf(deps: DeliveryDeps, row: DeliveryRow, now: Date): { current: Signer; previous: Signer | null } {
  const endpoint = { ...row, id: row.endpoint_id };
  const current = signer(`${row.endpoint_id}:current:${row.secret_key_version}:${row.secret_sealed}`, () => endpointSecret(deps.secretKeys, endpoint));
  if (row.previous_secret_expires_at === null || row.previous_secret_expires_at.getTime() <= now.getTime()) return { current, previous: null };
  try {
    const previous = signer(`${row.endpoint_id}:previous:${row.previous_secret_key_version}:${row.previous_secret_sealed}`, () => previousEndpointSecret(deps.secretKeys, endpoint, now)!);
    return { current, previous };
  } catch {
    return { current, previous: null };
  }
}

/** The headers of an attempt at `startedAt`, or null when the endpoint's secret cannot be used for signing. */
function signedHeaders(deps: DeliveryDeps, row: DeliveryRow, message: DeliveryMessage, body: string, startedAt: Date): Record<string, string> | null {
  try {
    const { current, previous } = signersOf(deps, row, startedAt);
    return deliveryHeaders(message, body, current, startedAt, previous);
  } catch {
    return null;
  }
}

/**
 * Makes the HTTP attempt of `job` for delivery `row` within its endpoint's limit; null
 * when no slot came within ENDPOINT_WAIT_MS, or none would (the attempt is to be put
 * back). Never throws.
 */
async function attempt(deps: DeliveryDeps, job: DeliveryStep, row: DeliveryRow, shutdown: AbortSignal): Promise<Attempt | null> {
  // The event is stored in the shape of its data_version; each endpoint receives it at its own version.
  const message: DeliveryMessage = {
    eventId: row.event_id,
    code: row.code,
    createdAt: row.event_created_at,
    endpointId: row.endpoint_id,
    businessId: row.business_id,
    url: row.url,
    data: deps.versioning.eventData(row.code, row.data, row.data_version, row.api_version),
    apiVersion: row.api_version,
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
      : { statusCode: null, retryAfter: null, responseBody: null, responseHeaders: null, latencyMs: 0, error: 'the endpoint secret cannot be used for signing', interrupted: false };
  } finally {
    // An attempt not sent, or cut short by shutdown, says nothing about the endpoint.
    const made = headers && result && !result.interrupted;
    slot.release(made ? signalOf(result!.statusCode, result!.error) : 'neutral', made ? result!.latencyMs : undefined);
  }
  const finishedAt = new Date();
  const next = result.interrupted ? finishedAt : nextAttemptAt(job.attempt, finishedAt, deps.retryScale, retryAfterSeconds(result.retryAfter));
  const sent = headers ? { headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, body } : null;
  return { job, row, result, startedAt, next, outcome: outcomeOf(result, next), sent };
}

/**
 * Runs one `webhook-delivery` job (see the module comment): its deliveries read in one
 * query, their attempts made side by side, each recorded as soon as it ends; resolves
 * once all are recorded, rejects (after all ended) when one could not be. An attempt made
 * already, or of a delivery no longer PENDING, is not made again; a delivery whose
 * endpoint is no longer ENABLED is CANCELLED.
 */
export async function runDeliveryJob(deps: DeliveryDeps, job: DeliveryJob, shutdown: AbortSignal): Promise<void> {
  const { db } = deps;
  const steps = stepsOf(job);
  const rows = await deps.reader.read(steps.map((j) => j.delivery_id), job.business_id);
  const due = steps.filter((step) => {
    const row = rows.get(step.delivery_id);
    return row && row.status === 'PENDING' && row.attempt_count < step.attempt; // else done, or this attempt was made
  });
  const cancelled = due.filter((step) => rows.get(step.delivery_id)!.endpoint_status !== 'ENABLED').map((step) => step.delivery_id);
  if (cancelled.length > 0) {
    const { business_id } = rows.get(cancelled[0]!)!; // a job's deliveries are of one endpoint
    await db('webhook_deliveries').whereIn('id', cancelled).where({ business_id, status: 'PENDING' }).update({ status: 'CANCELLED', next_attempt_at: null, completed_at: db.fn.now(3), updated_at: db.fn.now(3) });
  }
  const toMake = due.filter((step) => !cancelled.includes(step.delivery_id));
  // One attempt started per turn of the event loop: started all at once, a job's
  // signing and sending ran as one long task, and API requests waited behind it.
  const recorded: Promise<void>[] = [];
  for (const step of toMake) {
    const row = rows.get(step.delivery_id)!;
    recorded.push(
      attempt(deps, step, row, shutdown).then((made) =>
        made
          ? deps.recorder.add([made], [])
          : deps.recorder.add([], [{ step, businessId: row.business_id, endpointId: row.endpoint_id, due: new Date(Date.now() + deps.endpoints.deferMs(row.endpoint_id)) }]),
      ),
    );
    await new Promise((resolve) => setImmediate(resolve));
  }
  const failed = (await Promise.allSettled(recorded)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}
