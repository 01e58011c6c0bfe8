/**
 * The delivery log of one endpoint (`listWebhookDeliveryAttempts`): every HTTP attempt
 * made to it (`webhook_delivery_attempts`, written by ./delivery.ts with the attempt),
 * newest first, with its event's code. An attempt's stored outcome (SUCCEEDED, RETRY,
 * FAILED, ENDPOINT_GONE) is shown as SUCCEEDED or FAILED: whether the endpoint answered
 * 2xx; what followed is `next_attempt_at`. Each attempt carries the request as sent (headers
 * and body) and the response's headers as ./attemptRecorder.ts kept them, its `trigger`
 * (MANUAL for a delivery someone asked for) and its `number` among its event's attempts to
 * the endpoint. Each filter reads one index range of the endpoint's attempts (the event's
 * code and payout id are copied onto the attempt when it is recorded).
 */
import type { Knex } from 'knex';
import type { components } from '../../generated/types/closed-loop.js';
import { fitText } from '../kernel/errors.js';
import { paginate, type Page, type PageQuery } from '../kernel/pagination.js';
import type { CsvColumn } from '../kernel/csv.js';
import { endpointRow } from './endpoints.js';

type Schemas = components['schemas'];
export type DeliveryAttemptView = Schemas['WebhookDeliveryAttempt'];

/** The list's filters (the document's query parameters). */
export interface AttemptFilter extends PageQuery {
  event_id?: string;
  event_code?: string;
  payout_id?: string;
  outcome?: Schemas['WebhookAttemptOutcome'];
  created_from?: string;
  created_to?: string;
}

interface AttemptRow {
  id: string;
  delivery_id: string;
  event_id: string;
  code: string;
  attempt: number;
  outcome: string;
  started_at: Date;
  latency_ms: number;
  status_code: number | null;
  response_body: string | null;
  error: string | null;
  next_attempt_at: Date | null;
  created_at: Date;
  trigger: 'AUTOMATIC' | 'MANUAL';
  number: number | null;
  request_headers: Record<string, string> | null;
  request_body: string | null;
  response_headers: Record<string, string> | null;
}

/** Longest `error` and `response_body` shown (the document's maxLength; control characters become U+FFFD there). */
const MAX_ERROR = 1000;
const MAX_BODY = 1024;

/** An attempt's `error` as the documents show it (at most MAX_ERROR characters, control characters replaced). */
export function shownError(error: string | null): string | null {
  return error === null ? null : fitText(error, MAX_ERROR);
}

/**
 * A page of endpoint `endpointId`'s attempts, newest first (by the time each was
 * recorded). Throws 404 WEBHOOK_ENDPOINT_NOT_FOUND, 400 INVALID_CURSOR.
 */
export async function listDeliveryAttempts(db: Knex, businessId: string, endpointId: string, filter: AttemptFilter): Promise<Page<DeliveryAttemptView>> {
  await endpointRow(db, businessId, endpointId);
  const query = db('webhook_delivery_attempts as a')
    .join('outbox_events as e', (on) => on.on('e.business_id', 'a.business_id').andOn('e.id', 'a.event_id'))
    .where({ 'a.business_id': businessId, 'a.endpoint_id': endpointId })
    .select(
      'a.id', 'a.delivery_id', 'a.event_id', 'e.code', 'a.attempt', 'a.outcome', 'a.started_at', 'a.latency_ms',
      'a.status_code', 'a.response_body', 'a.error', 'a.next_attempt_at', 'a.created_at',
      'a.trigger', 'a.number', 'a.request_headers', 'a.request_body', 'a.response_headers',
    );
  if (filter.event_id) query.where('a.event_id', filter.event_id);
  if (filter.event_code) query.where('a.event_code', filter.event_code);
  if (filter.payout_id) query.where('a.payout_id', filter.payout_id);
  if (filter.outcome === 'SUCCEEDED') query.where('a.outcome', 'SUCCEEDED');
  if (filter.outcome === 'FAILED') query.whereNot('a.outcome', 'SUCCEEDED');
  if (filter.created_from) query.where('a.created_at', '>=', new Date(filter.created_from));
  if (filter.created_to) query.where('a.created_at', '<', new Date(filter.created_to));
  return paginate<AttemptRow, DeliveryAttemptView>(
    query,
    filter,
    (rows) =>
      rows.map((r) => ({
        id: r.id,
        delivery_id: r.delivery_id,
        event_id: r.event_id,
        event_code: r.code,
        attempt: r.attempt,
        // Attempts recorded before numbers were kept are numbered within their delivery.
        number: r.number ?? r.attempt,
        trigger: r.trigger,
        outcome: r.outcome === 'SUCCEEDED' ? 'SUCCEEDED' : 'FAILED',
        started_at: r.started_at.toISOString(),
        duration_ms: r.latency_ms,
        response_status: r.status_code,
        response_body: r.response_body === null ? null : fitText(r.response_body, MAX_BODY),
        error: shownError(r.error),
        next_attempt_at: r.next_attempt_at?.toISOString() ?? null,
        request_headers: r.request_headers,
        request_body: r.request_body,
        response_headers: r.response_headers,
      })),
    'a',
  );
}

/** The columns of an endpoint's attempts' CSV export (closed-loop `exportWebhookDeliveryAttemptsCsv`). */
export const ATTEMPT_CSV_COLUMNS: CsvColumn<DeliveryAttemptView>[] = [
  'started_at', 'id', 'delivery_id', 'event_id', 'event_code', 'number', 'trigger', 'attempt', 'outcome', 'duration_ms', 'response_status', 'error', 'next_attempt_at', 'response_body',
];
