/**
 * Webhook endpoints (seed E3, preview): a registration is stored ENABLED and receives
 * the deliveries of its event codes (src/webhooks/), rendered at its `api_version` (the
 * business's default version when the registration names none); its URL must pass the URL policy
 * (src/webhooks/urlPolicy.ts); its secret is the Standard Webhooks signing secret,
 * stored sealed (src/webhooks/secrets.ts) and never returned.
 *
 * An endpoint is DISABLED by an update (reason MANUAL), by a 410 from it (GONE,
 * ./delivery.ts) or after every attempt failed for WEBHOOK_DISABLE_FAILING_AFTER_HOURS
 * (FAILING, ./health.ts); the relay creates no delivery for a DISABLED endpoint, so its
 * events are recorded (the outbox) but not sent, and its pending deliveries are cancelled
 * when their jobs come due. An update to ENABLED turns it back on, whatever the reason.
 * A deleted endpoint keeps its row (its deliveries and attempts refer to it), DISABLED
 * with `deleted_at`, and no operation finds it again.
 *
 * Every function takes the caller's business and answers 404 WEBHOOK_ENDPOINT_NOT_FOUND
 * for an endpoint of another business, as for one that does not exist.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/closed-loop.js';
import { AppError } from '../kernel/errors.js';
import type { SealingKeys } from '../kernel/secrets/sealing.js';
import type { JobQueue } from '../jobs/queue.js';
import { DELIVERY_QUEUE, type DeliveryJob } from './deliveryJobs.js';
import { endpointSecret, newEndpointSecret, sealEndpointSecret, sealPreviousSecret, type StoredSecret } from './secrets.js';
import { checkRegistrationUrl, type UrlPolicy } from './urlPolicy.js';
import { paginate, type Page, type PageQuery } from '../kernel/pagination.js';
import { businessSettings } from '../businesses/index.js';
import { emitEvent } from '../events/outbox.js';

type Schemas = components['schemas'];
export type WebhookEndpointView = Schemas['WebhookEndpoint'];

/** The code of the test event (`sendWebhookTestEvent`); not one an endpoint can subscribe to. */
export const TEST_EVENT_CODE = 'webhook.test';

/** How long a replaced secret signs beside the new one when the rotation does not say: 24 hours, in seconds. */
export const DEFAULT_PREVIOUS_SECRET_SECONDS = 86_400;

export interface EndpointRow {
  id: string;
  url: string;
  description: string | null;
  events: Schemas['WebhookEventCode'][];
  api_version: Schemas['ApiVersion'];
  status: 'ENABLED' | 'DISABLED';
  disabled_reason: WebhookEndpointView['disabled_reason'];
  disabled_at: Date | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
}

export const ENDPOINT_VIEW_COLUMNS = ['id', 'url', 'description', 'events', 'api_version', 'status', 'disabled_reason', 'disabled_at', 'previous_secret_expires_at', 'created_at'] as const;

/** The endpoint as the API shows it; a previous secret whose overlap ended is not mentioned. */
export function endpointView(r: EndpointRow, now = new Date()): WebhookEndpointView {
  const previous = r.previous_secret_expires_at && r.previous_secret_expires_at > now ? r.previous_secret_expires_at.toISOString() : null;
  return {
    id: r.id,
    url: r.url,
    description: r.description,
    events: r.events,
    api_version: r.api_version,
    status: r.status,
    disabled_reason: r.disabled_reason,
    disabled_at: r.disabled_at?.toISOString() ?? null,
    previous_secret_expires_at: previous,
    created_at: r.created_at.toISOString(),
  };
}

const notFound = (endpointId: string) => new AppError('WEBHOOK_ENDPOINT_NOT_FOUND', `No webhook endpoint ${endpointId} for this business.`);

/** The business's endpoint `endpointId` (not deleted), locked FOR UPDATE when `lock`; throws 404 WEBHOOK_ENDPOINT_NOT_FOUND. */
export async function endpointRow(db: Knex, businessId: string, endpointId: string, lock = false): Promise<EndpointRow> {
  const query = db('webhook_endpoints').where({ id: endpointId, business_id: businessId }).whereNull('deleted_at').first(...ENDPOINT_VIEW_COLUMNS);
  const row = (await (lock ? query.forUpdate() : query)) as EndpointRow | undefined;
  if (!row) throw notFound(endpointId);
  return row;
}

/** Throws 409 WEBHOOK_ENDPOINT_DISABLED unless `row` is ENABLED. */
export function requireEnabled(row: { id: string; status: string; disabled_reason: string | null }): void {
  if (row.status !== 'ENABLED') {
    throw new AppError('WEBHOOK_ENDPOINT_DISABLED', `The webhook endpoint ${row.id} is ${row.status}${row.disabled_reason ? ` (${row.disabled_reason})` : ''}.`);
  }
}

/** Stores an endpoint registration, ENABLED, its secret sealed with `keys`, and returns it (as getWebhookEndpoint); throws 400 WEBHOOK_URL_NOT_ALLOWED. */
export async function createWebhookEndpoint(
  db: Knex,
  policy: UrlPolicy,
  keys: SealingKeys,
  businessId: string,
  req: Schemas['WebhookEndpointCreateRequest'],
): Promise<WebhookEndpointView> {
  await checkRegistrationUrl(policy, req.url);
  const id = randomUUID();
  // The business's default version unless the registration names one (Stripe's rule), read
  // first: a subquery inside VALUES is a statement Citus cannot route to one shard.
  const apiVersion = req.api_version ?? (await businessSettings(db, businessId)).api_version;
  await db('webhook_endpoints').insert({
    id,
    business_id: businessId,
    url: req.url,
    description: req.description ?? null,
    ...sealEndpointSecret(keys, id, req.secret),
    events: JSON.stringify(req.events),
    api_version: apiVersion,
    status: 'ENABLED',
  });
  return getWebhookEndpoint(db, businessId, id);
}

/** A page of the business's endpoints, newest first, deleted ones left out (secrets are never returned). */
export async function listWebhookEndpoints(db: Knex, businessId: string, page: PageQuery): Promise<Page<WebhookEndpointView>> {
  const query = db('webhook_endpoints').where({ business_id: businessId }).whereNull('deleted_at').select(...ENDPOINT_VIEW_COLUMNS);
  const now = new Date();
  return paginate<EndpointRow, WebhookEndpointView>(query, page, (rows) => rows.map((r) => endpointView(r, now)));
}

/** One endpoint of the business; throws 404 WEBHOOK_ENDPOINT_NOT_FOUND. */
export async function getWebhookEndpoint(db: Knex, businessId: string, endpointId: string): Promise<WebhookEndpointView> {
  return endpointView(await endpointRow(db, businessId, endpointId));
}

/**
 * Changes the fields `req` names (see the module comment for the status). Throws 404
 * WEBHOOK_ENDPOINT_NOT_FOUND and 400 WEBHOOK_URL_NOT_ALLOWED (checked before anything is
 * written, so a refused update changes nothing).
 */
export async function updateWebhookEndpoint(
  db: Knex,
  policy: UrlPolicy,
  businessId: string,
  endpointId: string,
  req: Schemas['WebhookEndpointUpdateRequest'],
): Promise<WebhookEndpointView> {
  await endpointRow(db, businessId, endpointId); // 404 before the URL is looked up
  if (req.url !== undefined) await checkRegistrationUrl(policy, req.url);
  return db.transaction(async (trx) => {
    const row = await endpointRow(trx, businessId, endpointId, true);
    const changes: Record<string, unknown> = { updated_at: trx.fn.now(3) };
    if (req.url !== undefined) changes.url = req.url;
    if (req.events !== undefined) changes.events = JSON.stringify(req.events);
    if (req.description !== undefined) changes.description = req.description;
    if (req.api_version !== undefined) changes.api_version = req.api_version;
    if (req.status === 'DISABLED' && row.status === 'ENABLED') {
      Object.assign(changes, { status: 'DISABLED', disabled_reason: 'MANUAL', disabled_at: trx.fn.now(3) });
    }
    if (req.status === 'ENABLED' && row.status !== 'ENABLED') {
      // Enabled again: the failing streak that may have disabled it starts over.
      Object.assign(changes, { status: 'ENABLED', disabled_reason: null, disabled_at: null, failing_since: null });
    }
    const [updated] = await trx('webhook_endpoints').where({ id: endpointId, business_id: businessId }).update(changes).returning([...ENDPOINT_VIEW_COLUMNS]);
    return endpointView(updated as EndpointRow);
  });
}

/** Deletes the endpoint (see the module comment) and returns it as it is then; throws 404 WEBHOOK_ENDPOINT_NOT_FOUND. */
export async function deleteWebhookEndpoint(db: Knex, businessId: string, endpointId: string): Promise<WebhookEndpointView> {
  const [row] = await db('webhook_endpoints')
    .where({ id: endpointId, business_id: businessId })
    .whereNull('deleted_at')
    .update({ status: 'DISABLED', disabled_reason: 'DELETED', disabled_at: db.fn.now(3), deleted_at: db.fn.now(3), updated_at: db.fn.now(3) })
    .returning([...ENDPOINT_VIEW_COLUMNS]);
  if (!row) throw notFound(endpointId);
  return endpointView(row as EndpointRow);
}

/** The secret of `stored` in clear, or null when it does not open. */
function openedOrNull(keys: SealingKeys, stored: StoredSecret): string | null {
  try {
    return endpointSecret(keys, stored);
  } catch {
    return null;
  }
}

/**
 * Replaces the endpoint's secret with a new one, drawn here and returned once; the
 * replaced secret keeps signing beside it for `previousSeconds` (0 to 86400: none
 * at 0). A previous secret still signing from an earlier rotation stops. Throws 404
 * WEBHOOK_ENDPOINT_NOT_FOUND.
 */
export async function rotateWebhookEndpointSecret(
  db: Knex,
  keys: SealingKeys,
  businessId: string,
  endpointId: string,
  previousSeconds: number,
): Promise<Schemas['WebhookSecretRotation']> {
  return db.transaction(async (trx) => {
    await endpointRow(trx, businessId, endpointId, true);
    const stored = (await trx('webhook_endpoints').where({ id: endpointId, business_id: businessId }).first('id', 'secret_sealed', 'secret_key_version')) as StoredSecret;
    const replaced = openedOrNull(keys, stored);
    const secret = newEndpointSecret();
    // A replaced secret that no longer opens (its key is gone) cannot sign: it is dropped.
    const expiresAt = previousSeconds > 0 && replaced !== null ? new Date(Date.now() + previousSeconds * 1000) : null;
    await trx('webhook_endpoints')
      .where({ id: endpointId, business_id: businessId })
      .update({
        ...sealEndpointSecret(keys, endpointId, secret),
        ...(expiresAt
          ? sealPreviousSecret(keys, endpointId, replaced!, expiresAt)
          : { previous_secret_sealed: null, previous_secret_key_version: null, previous_secret_expires_at: null }),
        updated_at: trx.fn.now(3),
      });
    return { secret, previous_secret_expires_at: expiresAt?.toISOString() ?? null };
  });
}

/**
 * Records a `webhook.test` event (data `{}`) and queues its delivery to this endpoint
 * alone (kind TEST), due now; returns the delivery. The relay creates no other delivery
 * of it: no endpoint can subscribe to the code. Throws 404 WEBHOOK_ENDPOINT_NOT_FOUND,
 * 409 WEBHOOK_ENDPOINT_DISABLED.
 */
export async function sendWebhookTestEvent(db: Knex, jobs: JobQueue, businessId: string, endpointId: string): Promise<Schemas['WebhookTestDelivery']> {
  return db.transaction(async (trx) => {
    requireEnabled(await endpointRow(trx, businessId, endpointId, true));
    const eventId = await emitEvent(trx, businessId, TEST_EVENT_CODE, {});
    const id = randomUUID();
    const [row] = await trx('webhook_deliveries')
      .insert({ id, business_id: businessId, event_id: eventId, endpoint_id: endpointId, kind: 'TEST', status: 'PENDING', next_attempt_at: trx.fn.now(3) })
      .returning(['created_at']);
    await jobs.send(DELIVERY_QUEUE, { delivery_id: id, attempt: 1, business_id: businessId } satisfies DeliveryJob, { trx, businessId });
    return { id, event_id: eventId, webhook_id: endpointId, status: 'PENDING' as const, created_at: (row.created_at as Date).toISOString() };
  });
}
