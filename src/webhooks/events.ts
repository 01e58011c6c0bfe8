/**
 * The business's events (the event outbox, `outbox_events`, src/events/outbox.ts) as the
 * core API shows them (`listEvents`, `redeliverEvent`). Producers emit events in the
 * transaction of their effect; src/webhooks/dispatcher.ts delivers them.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { AppError } from '../kernel/errors.js';
import type { JobQueue } from '../jobs/queue.js';
import { DELIVERY_QUEUE, type DeliveryJob } from './deliveryJobs.js';
import { paginate, type Page, type PageQuery } from '../kernel/pagination.js';
import type { CsvColumn } from '../kernel/csv.js';
import { TEST_EVENT_CODE } from './endpoints.js';
import { API_VERSIONING } from '../kernel/versioning/apiVersions.js';
import type { ApiVersioning } from '../kernel/versioning/versionChange.js';

type Schemas = components['schemas'];

/**
 * The object an event is about (core.yaml EventObjectFilter): the payout its data names, else
 * the customer. The index outbox_events_business_id_object_created_at_id_index
 * (src/db/migrations/047_event_object_index.ts) is on this expression as written here.
 */
const EVENT_OBJECT = "COALESCE(data->>'payout_id', data->>'customer_id')";

export interface EventFilter extends PageQuery {
  code?: string;
  object_id?: string;
  created_from?: string;
  created_to?: string;
}

/**
 * A page of the business's events, newest first, optionally of one `code`, about one
 * `object_id` (a payout's or a customer's id: EVENT_OBJECT) and in a time range, each
 * event's `data` rendered at API version `version` (brought up from the shape it was stored in, then down: API_VERSIONING.eventData);
 * throws 400 INVALID_CURSOR. Test events (`sendWebhookTestEvent`, ./endpoints.ts) are left
 * out: they belong to one endpoint and show in its delivery attempts.
 */
export async function listEvents(db: Knex, businessId: string, filter: EventFilter, version: string, versioning: ApiVersioning = API_VERSIONING): Promise<Page<Schemas['Event']>> {
  const query = db('outbox_events').where({ business_id: businessId }).whereNot({ code: TEST_EVENT_CODE }).select('id', 'code', 'data', 'data_version', 'created_at');
  if (filter.code) query.where({ code: filter.code });
  if (filter.object_id) query.whereRaw(`${EVENT_OBJECT} = ?`, [filter.object_id.toLowerCase()]);
  if (filter.created_from) query.where('created_at', '>=', new Date(filter.created_from));
  if (filter.created_to) query.where('created_at', '<', new Date(filter.created_to));
  return paginate<{ id: string; code: string; data: object; data_version: string; created_at: Date }, Schemas['Event']>(query, filter, (rows) =>
    rows.map((r) => ({ id: r.id, code: r.code, data: versioning.eventData(r.code, r.data, r.data_version, version), created_at: r.created_at.toISOString() }) as Schemas['Event']),
  );
}

/**
 * Queues one more delivery of event `eventId` to endpoint `endpointId` (both the
 * business's), due now; returns it. Throws 404 EVENT_NOT_FOUND / WEBHOOK_ENDPOINT_NOT_FOUND,
 * 409 WEBHOOK_ENDPOINT_DISABLED, 422 WEBHOOK_ENDPOINT_NOT_SUBSCRIBED.
 */
export async function redeliverEvent(db: Knex, jobs: JobQueue, businessId: string, eventId: string, endpointId: string): Promise<Schemas['WebhookDelivery']> {
  return db.transaction(async (trx) => {
    const event = await trx('outbox_events').where({ id: eventId, business_id: businessId }).whereNot({ code: TEST_EVENT_CODE }).first('id', 'code');
    if (!event) throw new AppError('EVENT_NOT_FOUND', `No event ${eventId} for this business.`);
    const endpoint = await trx('webhook_endpoints').where({ id: endpointId, business_id: businessId }).whereNull('deleted_at').first('id', 'status', 'disabled_reason', 'events');
    if (!endpoint) throw new AppError('WEBHOOK_ENDPOINT_NOT_FOUND', `No webhook endpoint ${endpointId} for this business.`);
    if (endpoint.status !== 'ENABLED') {
      throw new AppError('WEBHOOK_ENDPOINT_DISABLED', `The webhook endpoint ${endpointId} is ${endpoint.status}${endpoint.disabled_reason ? ` (${endpoint.disabled_reason})` : ''}.`);
    }
    if (!(endpoint.events as string[]).includes(event.code)) {
      throw new AppError('WEBHOOK_ENDPOINT_NOT_SUBSCRIBED', `The webhook endpoint ${endpointId} is not subscribed to ${event.code}.`);
    }
    const id = randomUUID();
    const [row] = await trx('webhook_deliveries')
      .insert({ id, business_id: businessId, event_id: eventId, endpoint_id: endpointId, kind: 'REDELIVERY', status: 'PENDING', next_attempt_at: trx.fn.now(3) })
      .returning(['created_at']);
    await jobs.send(DELIVERY_QUEUE, { delivery_id: id, attempt: 1, business_id: businessId } satisfies DeliveryJob, { trx, businessId });
    return { id, event_id: eventId, webhook_id: endpointId, status: 'PENDING', created_at: (row.created_at as Date).toISOString() };
  });
}

/** The columns of the events' CSV export (core `exportEventsCsv`): an event's `data` is its JSON. */
export const EVENT_CSV_COLUMNS: CsvColumn<Schemas['Event']>[] = ['created_at', 'id', 'code', 'data'];
