/**
 * The endpoints' health as the service reports it (`listWebhookEndpointHealth`): a page of
 * the business's endpoints, each with its state, when its last attempt succeeded, its newest
 * failure and its attempts of the last 24 hours per hour. A dashboard asks once per page
 * (or once per state it watches) instead of reading attempts per endpoint.
 *
 * `failing_since` is kept by the delivery path (./health.ts); everything else is read from
 * `webhook_delivery_attempts` through its (endpoint_id, created_at, id) index, each read
 * bounded: the hours by the last day, the last success by the current run of failures (the
 * newest attempt, unless failing), the newest failure by the last day (the newest attempt,
 * when failing). So a page costs its endpoints' attempts of a day, not their history.
 */
import type { Knex } from 'knex';
import type { components } from '../../generated/types/closed-loop.js';
import { paginate, type Page, type PageQuery } from '../kernel/pagination.js';
import { shownError } from './attempts.js';
import { ENDPOINT_VIEW_COLUMNS, endpointView, type EndpointRow } from './endpoints.js';

type Schemas = components['schemas'];
export type EndpointHealthView = Schemas['WebhookEndpointHealth'];
type HealthState = Schemas['WebhookEndpointHealthState'];

/** The list's filters (the document's query parameters). */
export interface HealthFilter extends PageQuery {
  state?: HealthState;
  /** Only the endpoints FAILING or DISABLED. */
  needs_attention?: boolean;
}

/** Hours `hourly` covers: the current one and the 23 before it. */
const HOURS = 24;
const HOUR_MS = 3_600_000;

interface HealthRow extends EndpointRow {
  failing_since: Date | null;
}

/** The state of an endpoint row: DISABLED, FAILING while `failing_since` is set, else HEALTHY. */
function stateOf(row: HealthRow): HealthState {
  if (row.status === 'DISABLED') return 'DISABLED';
  return row.failing_since ? 'FAILING' : 'HEALTHY';
}

/** Restricts `query` (over `webhook_endpoints`) to the endpoints in `state`. */
function whereState(query: Knex.QueryBuilder, state: HealthState): void {
  if (state === 'DISABLED') query.where('status', 'DISABLED');
  else query.where('status', 'ENABLED')[state === 'FAILING' ? 'whereNotNull' : 'whereNull']('failing_since');
}

/** The start of the oldest hour `hourly` covers, for the instant `now`. */
function windowStart(now: Date): Date {
  return new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - (HOURS - 1) * HOUR_MS);
}

/**
 * A page of the business's endpoints (not deleted; newest first, as `listWebhookEndpoints`),
 * in `filter.state` when given, each with its health. Throws 400 INVALID_CURSOR.
 */
export async function listEndpointHealth(db: Knex, businessId: string, filter: HealthFilter, now = new Date()): Promise<Page<EndpointHealthView>> {
  const query = db('webhook_endpoints').where({ business_id: businessId }).whereNull('deleted_at').select(...ENDPOINT_VIEW_COLUMNS, 'failing_since');
  if (filter.state) whereState(query, filter.state);
  if (filter.needs_attention) query.where((q) => q.where('status', 'DISABLED').orWhereNotNull('failing_since'));
  return paginate<HealthRow, EndpointHealthView>(query, filter, (rows) => withHealth(db, businessId, rows, now));
}

/** The health of endpoints `rows` of the business at `now`: three reads for the whole page. */
async function withHealth(db: Knex, businessId: string, rows: HealthRow[], now: Date): Promise<EndpointHealthView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const since = windowStart(now);
  const [hours, latest] = await Promise.all([
    db('webhook_delivery_attempts')
      .where({ business_id: businessId })
      .whereIn('endpoint_id', ids)
      .where('created_at', '>=', since)
      .groupBy('endpoint_id', 'hour')
      .select('endpoint_id', db.raw("date_trunc('hour', created_at) AS hour"))
      .select(db.raw("count(*) FILTER (WHERE outcome = 'SUCCEEDED')::int AS succeeded"), db.raw("count(*) FILTER (WHERE outcome <> 'SUCCEEDED')::int AS failed")) as Promise<
      { endpoint_id: string; hour: Date; succeeded: number; failed: number }[]
    >,
    latestAttempts(db, businessId, rows, since),
  ]);
  return rows.map((row) => {
    const mine = hours.filter((h) => h.endpoint_id === row.id);
    const hourly = Array.from({ length: HOURS }, (_, i) => {
      const start = new Date(since.getTime() + i * HOUR_MS);
      const found = mine.find((h) => h.hour.getTime() === start.getTime());
      return { hour: start.toISOString(), succeeded: found?.succeeded ?? 0, failed: found?.failed ?? 0 };
    });
    const last = latest.get(row.id);
    return {
      endpoint: endpointView(row, now),
      state: stateOf(row),
      failing_since: row.failing_since?.toISOString() ?? null,
      last_success_at: last?.success_started_at?.toISOString() ?? null,
      last_failure: last?.failure_started_at
        ? { started_at: last.failure_started_at.toISOString(), response_status: last.failure_status, error: shownError(last.failure_error) }
        : null,
      attempts_24h: { succeeded: hourly.reduce((n, h) => n + h.succeeded, 0), failed: hourly.reduce((n, h) => n + h.failed, 0) },
      hourly,
    };
  });
}

interface LatestRow {
  id: string;
  success_started_at: Date | null;
  failure_started_at: Date | null;
  failure_status: number | null;
  failure_error: string | null;
}

/**
 * Per endpoint of `rows`: the newest successful attempt, and the newest failed one since
 * `since` (or of any age while the endpoint is failing). One statement, a bounded index scan
 * per endpoint (see the module comment); each table is named by the business as a value, so
 * that on Citus the statement is one shard's (a join condition alone leaves it to every shard).
 */
async function latestAttempts(db: Knex, businessId: string, rows: HealthRow[], since: Date): Promise<Map<string, LatestRow>> {
  const ids = rows.map((r) => r.id);
  const found = await db.raw<{ rows: LatestRow[] }>(
    `SELECT e.id, s.started_at AS success_started_at, f.started_at AS failure_started_at, f.status_code AS failure_status, f.error AS failure_error
       FROM webhook_endpoints e
       LEFT JOIN LATERAL (
         SELECT a.started_at FROM webhook_delivery_attempts a
          WHERE a.business_id = ? AND a.endpoint_id = e.id AND a.outcome = 'SUCCEEDED'
          ORDER BY a.created_at DESC, a.id DESC LIMIT 1) s ON true
       LEFT JOIN LATERAL (
         SELECT a.started_at, a.status_code, a.error FROM webhook_delivery_attempts a
          WHERE a.business_id = ? AND a.endpoint_id = e.id AND a.outcome <> 'SUCCEEDED'
            AND (e.failing_since IS NOT NULL OR a.created_at >= ?)
          ORDER BY a.created_at DESC, a.id DESC LIMIT 1) f ON true
      WHERE e.business_id = ? AND e.id IN (${ids.map(() => '?').join(', ')})`,
    [businessId, businessId, since, businessId, ...ids],
  );
  return new Map(found.rows.map((r) => [r.id, r]));
}
