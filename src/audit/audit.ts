/**
 * The audit log: who did what, through the API (or the portal), with what result. One row
 * per state-changing request and per permission refusal, written by the HTTP edge
 * (src/http/auditTrail.ts) before the response is sent; read by `listAuditEvents` and its
 * CSV export; deleted only by the retention purge (./sql/audit_events_append_only.sql).
 */
import { randomUUID } from 'node:crypto';
import type { CsvColumn } from '../kernel/csv.js';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { acrossBusinesses } from '../db/acrossBusinesses.js';
import { paginate, type Page, type PageQuery } from '../kernel/pagination.js';

type Schemas = components['schemas'];

/**
 * Whose account a public operation acted on before any principal exists (a portal sign-in, an
 * accepted invitation): its handler sets `koa.state.auditSubject` to this when it knows, and
 * the entry is recorded under that business, with the user as actor when one is named.
 */
export interface AuditSubject {
  businessId: string;
  userId?: string;
  /** The API key (client id) that asked, when no user did: a token request's. */
  clientId?: string;
}

/** One audit event as the HTTP edge records it. `actorType` `api_key`: `actorId` is the API client's id. */
export interface AuditEntry {
  businessId: string;
  actorType: 'api_key' | 'user';
  actorId: string;
  operationId: string;
  method: string;
  /** The ids the request named (path parameters) and the id of what it created. */
  targetIds: string[];
  status: number;
  problemCode: string | null;
  replayed: boolean;
  requestId: string;
  ipAddress: string | null;
  userAgent: string | null;
}

/** The longest user agent kept (characters); a longer one is cut. */
const USER_AGENT_CHARS = 512;

/** The row of `entry` in audit_events. */
function rowOf(entry: AuditEntry): Record<string, unknown> {
  return {
    id: randomUUID(),
    business_id: entry.businessId,
    actor_type: entry.actorType,
    actor_id: entry.actorId,
    operation_id: entry.operationId,
    method: entry.method,
    target_ids: entry.targetIds,
    status: entry.status,
    problem_code: entry.problemCode,
    replayed: entry.replayed,
    request_id: entry.requestId,
    ip_address: entry.ipAddress,
    user_agent: entry.userAgent === null ? null : entry.userAgent.slice(0, USER_AGENT_CHARS),
  };
}

/** The most entries one INSERT takes. */
const BATCH_ROWS = 500;

/**
 * Records audit entries as a group commit: an entry is inserted at once when no insert is
 * under way, else with every entry of its business that arrived meanwhile in the next round
 * (one multi-row INSERT per business, one commit each), so that concurrent requests share a
 * round trip and a WAL flush instead of paying one each. `record` resolves once its entry is
 * committed and rejects with what the database threw; a batch the database refuses is
 * inserted again entry by entry, so that one bad entry fails alone.
 */
export class AuditRecorder {
  private queued: { row: Record<string, unknown>; settle: (err?: unknown) => void }[] = [];
  private flushing = false;

  constructor(private readonly db: Knex) {}

  /** Records `entry`; resolves once it is committed. Throws what the database throws. */
  record(entry: AuditEntry): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queued.push({ row: rowOf(entry), settle: (err) => (err === undefined ? resolve() : reject(err)) });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.queued.length) {
      // One INSERT per business: a transaction writes one business's rows (on Citus, one node's).
      const byBusiness = new Map<unknown, typeof this.queued>();
      for (const q of this.queued.splice(0, BATCH_ROWS)) {
        const batch = byBusiness.get(q.row.business_id);
        if (batch) batch.push(q);
        else byBusiness.set(q.row.business_id, [q]);
      }
      await Promise.all([...byBusiness.values()].map((batch) => this.insert(batch)));
    }
    this.flushing = false;
  }

  private async insert(batch: typeof this.queued): Promise<void> {
    try {
      await this.db('audit_events').insert(batch.map((b) => b.row));
      for (const b of batch) b.settle();
    } catch (err) {
      if (batch.length === 1) batch[0]!.settle(err);
      else await Promise.all(batch.map((b) => this.db('audit_events').insert(b.row).then(() => b.settle(), (one: unknown) => b.settle(one))));
    }
  }
}

/** Which audit events to list (all filters optional; the time range is [created_from, created_to)). */
export interface AuditEventFilter extends PageQuery {
  actor_id?: string;
  operation_id?: string;
  target_id?: string;
  created_from?: string;
  created_to?: string;
}

interface Row {
  id: string;
  created_at: Date;
  actor_type: 'api_key' | 'user';
  actor_id: string;
  operation_id: string;
  method: string;
  target_ids: string[];
  status: number;
  problem_code: string | null;
  replayed: boolean;
  request_id: string;
  ip_address: string | null;
  user_agent: string | null;
}

/** The business's audit events matching `filter`, as a query (not yet ordered). */
function matching(db: Knex, businessId: string, filter: AuditEventFilter): Knex.QueryBuilder {
  const query = db('audit_events').where({ business_id: businessId });
  if (filter.actor_id) query.where({ actor_id: filter.actor_id });
  if (filter.operation_id) query.where({ operation_id: filter.operation_id });
  if (filter.target_id) query.whereRaw('target_ids @> ARRAY[?]::text[]', [filter.target_id]);
  if (filter.created_from) query.where('created_at', '>=', new Date(filter.created_from));
  if (filter.created_to) query.where('created_at', '<', new Date(filter.created_to));
  return query;
}

function toAuditEvent(r: Row): Schemas['AuditEvent'] {
  return {
    id: r.id,
    created_at: r.created_at.toISOString(),
    actor: { type: r.actor_type, id: r.actor_id },
    operation_id: r.operation_id,
    method: r.method as Schemas['AuditEvent']['method'],
    target_ids: r.target_ids,
    status: r.status,
    problem_code: r.problem_code,
    replayed: r.replayed,
    request_id: r.request_id,
    ip_address: r.ip_address,
    user_agent: r.user_agent,
  };
}

/** A page of the business's audit events matching `filter`, newest first. Throws 400 INVALID_CURSOR. */
export async function listAuditEvents(db: Knex, businessId: string, filter: AuditEventFilter): Promise<Page<Schemas['AuditEvent']>> {
  return paginate<Row, Schemas['AuditEvent']>(matching(db, businessId, filter), filter, (rows) => rows.map(toAuditEvent));
}

/**
 * The columns of the audit log's CSV export (core `exportAuditEventsCsv`, streamed by
 * listAuditEvents's pages): the actor as its type and id, `target_ids` separated by spaces.
 */
export const AUDIT_CSV_COLUMNS: CsvColumn<Schemas['AuditEvent']>[] = [
  'created_at', 'id',
  { name: 'actor_type', value: (e) => e.actor.type },
  { name: 'actor_id', value: (e) => e.actor.id },
  'operation_id', 'method',
  { name: 'target_ids', value: (e) => e.target_ids.join(' ') },
  'status', 'problem_code', 'replayed', 'request_id', 'ip_address', 'user_agent',
];

/**
 * Deletes the audit events older than `retentionDays` (at least 30: the table's trigger
 * refuses any other DELETE, ./sql/audit_events_append_only.sql), in one transaction that
 * names the retention to the trigger (and, on Citus, to the shards' nodes). Returns how many went.
 */
export async function purgeAuditEvents(db: Knex, retentionDays: number): Promise<number> {
  // Every business's old rows at once: a maintenance statement, one per shard on Citus.
  return acrossBusinesses(db, async (trx) => {
    await trx.raw("SELECT set_config('citus.propagate_set_commands', 'local', true), set_config('audit.retention_days', ?, true)", [String(retentionDays)]);
    return trx('audit_events').where('created_at', '<', trx.raw('now() - make_interval(days => ?)', [retentionDays])).del();
  }) as Promise<number>;
}
