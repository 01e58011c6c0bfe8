/**
 * The API request log, read and purged: the business's requests newest first, found by
 * request id or idempotency key (`listApiRequests`), one with its redacted bodies
 * (`getApiRequest`), and the purge that bounds the log in time and size (`purgeApiRequests`).
 * Written by ./requestLog.ts.
 */
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { acrossBusinesses } from '../db/acrossBusinesses.js';
import { AppError } from '../kernel/errors.js';
import { paginate, type Page, type PageQuery } from '../kernel/pagination.js';

type Schemas = components['schemas'];

/** Which requests to list (all filters optional; the time range is [created_from, created_to)). */
export interface ApiRequestFilter extends PageQuery {
  request_id?: string;
  idempotency_key?: string;
  operation_id?: string;
  status?: number;
  created_from?: string;
  created_to?: string;
}

interface Row {
  id: string;
  created_at: Date;
  request_id: string;
  operation_id: string;
  method: string;
  path: string;
  status: number;
  problem_code: string | null;
  duration_ms: number;
  idempotency_key: string | null;
  actor_type: 'api_key' | 'user';
  actor_id: string;
  request_body?: Record<string, unknown> | null;
  response_body?: Record<string, unknown> | null;
}

/** The columns of a listed request (its bodies stay in the table until one is opened). */
const LISTED = ['id', 'created_at', 'request_id', 'operation_id', 'method', 'path', 'status', 'problem_code', 'duration_ms', 'idempotency_key', 'actor_type', 'actor_id'];

function toApiRequest(r: Row): Schemas['ApiRequest'] {
  return {
    id: r.id,
    created_at: r.created_at.toISOString(),
    request_id: r.request_id,
    operation_id: r.operation_id,
    method: r.method as Schemas['ApiRequest']['method'],
    path: r.path,
    status: r.status,
    problem_code: r.problem_code,
    duration_ms: r.duration_ms,
    idempotency_key: r.idempotency_key,
    actor: { type: r.actor_type, id: r.actor_id },
  };
}

/** A page of the business's recorded requests matching `filter`, newest first. Throws 400 INVALID_CURSOR. */
export async function listApiRequests(db: Knex, businessId: string, filter: ApiRequestFilter): Promise<Page<Schemas['ApiRequest']>> {
  const query = db('api_requests').select(LISTED).where({ business_id: businessId });
  if (filter.request_id) query.where({ request_id: filter.request_id });
  if (filter.idempotency_key) query.where({ idempotency_key: filter.idempotency_key });
  if (filter.operation_id) query.where({ operation_id: filter.operation_id });
  if (filter.status !== undefined) query.where({ status: filter.status });
  if (filter.created_from) query.where('created_at', '>=', new Date(filter.created_from));
  if (filter.created_to) query.where('created_at', '<', new Date(filter.created_to));
  return paginate<Row, Schemas['ApiRequest']>(query, filter, (rows) => rows.map(toApiRequest));
}

/**
 * The business's newest recorded request with the id `requestId` (an `X-Request-Id` a client
 * sent may repeat), with its redacted bodies. Throws 404 API_REQUEST_NOT_FOUND.
 */
export async function getApiRequest(db: Knex, businessId: string, requestId: string): Promise<Schemas['ApiRequestDetail']> {
  const row = (await db('api_requests')
    .where({ business_id: businessId, request_id: requestId })
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .first()) as Row | undefined;
  if (!row) throw new AppError('API_REQUEST_NOT_FOUND', `No recorded request ${requestId} for this business.`);
  return { ...toApiRequest(row), request_body: row.request_body ?? null, response_body: row.response_body ?? null };
}

/**
 * Bounds the request log: deletes every request older than `days`, then, of each business
 * with more than `maxRows`, its oldest beyond that many. Returns how many went.
 */
export async function purgeApiRequests(db: Knex, days: number, maxRows: number): Promise<number> {
  // Every business's old rows at once, and which businesses are over the bound: maintenance
  // statements across businesses (one per shard on Citus); each trim then names its business.
  const [aged, crowded] = await acrossBusinesses(db, async (trx) => [
    await trx('api_requests').where('created_at', '<', trx.raw('now() - make_interval(days => ?)', [days])).del(),
    (await trx('api_requests').select('business_id').groupBy('business_id').havingRaw('count(*) > ?', [maxRows])) as { business_id: string }[],
  ]);
  let trimmed = 0;
  for (const { business_id } of crowded) {
    const oldestKept = db('api_requests').select('created_at', 'id').where({ business_id }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).offset(maxRows - 1).limit(1);
    trimmed += await db('api_requests').where({ business_id }).whereRaw('(created_at, id) < ?', [oldestKept]).del();
  }
  return (aged as number) + trimmed;
}
