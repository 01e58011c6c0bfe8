/**
 * The API request log, written: one row per API request that named a business (a principal),
 * through either API, for developers to find what their integration sent and got back
 * (read by ./requestLogReads.ts). Unlike the audit log (./audit.ts), it is written off the
 * request's critical path: the HTTP edge queues an entry after the answer is decided, and a
 * timer writes the queue in batches (one multi-row INSERT per business). The queue is bounded
 * per instance: past its size an entry is dropped and counted, and a database that refuses a
 * batch costs that batch (logged and counted), never a request. Bodies are redacted by the
 * service's one rule (src/log.ts SENSITIVE) and capped (BODY_CAP_BYTES).
 */
import { randomUUID } from 'node:crypto';
import type { OutageLog } from '../db/unavailable.js';
import type { Knex } from 'knex';
import { redacted, type Logger } from '../log.js';
import { REQUEST_LOG_EVENT } from '../kernel/metrics/metrics.js';

/** One API request as the HTTP edge hands it over; its bodies are redacted when written, not before. */
export interface ApiRequestEntry {
  businessId: string;
  /** When the request was answered. */
  at: Date;
  requestId: string;
  operationId: string;
  method: string;
  path: string;
  status: number;
  problemCode: string | null;
  durationMs: number;
  idempotencyKey: string | null;
  actorType: 'api_key' | 'user';
  actorId: string;
  /** The parsed request body (undefined: none). */
  requestBody: unknown;
  /** The response body as the handler set it (an object, a string, a Buffer or a stream). */
  responseBody: unknown;
}

/** The largest body stored, in bytes of its redacted JSON; a larger one is stored as a marker. */
export const BODY_CAP_BYTES = 16 * 1024;

/** The longest path kept (characters, the documents' ApiRequest.path). */
const PATH_CHARS = 2048;

/**
 * The stored form of a body, as jsonb text: its redacted JSON; null when there was none; for a
 * body that is not JSON (a CSV export, a stream), `{"omitted":"not_json"}`; for one whose
 * redacted JSON is over BODY_CAP_BYTES, `{"omitted":"too_large","bytes":<its size>}` (a
 * marker, never JSON cut in the middle).
 */
export function storedBody(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  if (typeof body !== 'object' || Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return JSON.stringify({ omitted: 'not_json' });
  const json = JSON.stringify(redacted(body));
  const bytes = Buffer.byteLength(json, 'utf8');
  return bytes > BODY_CAP_BYTES ? JSON.stringify({ omitted: 'too_large', bytes }) : json;
}

/** The row of `entry` in api_requests (its bodies redacted and capped, as jsonb text). */
function rowOf(entry: ApiRequestEntry): Record<string, unknown> {
  return {
    id: randomUUID(),
    business_id: entry.businessId,
    created_at: entry.at,
    request_id: entry.requestId,
    operation_id: entry.operationId,
    method: entry.method,
    path: entry.path.slice(0, PATH_CHARS),
    status: entry.status,
    problem_code: entry.problemCode,
    duration_ms: Math.max(0, Math.round(entry.durationMs)),
    idempotency_key: entry.idempotencyKey,
    actor_type: entry.actorType,
    actor_id: entry.actorId,
    request_body: storedBody(entry.requestBody),
    response_body: storedBody(entry.responseBody),
  };
}

/** How long an entry waits in the queue at most before its batch is written (ms). */
const FLUSH_MS = 250;
/** The most entries one flush takes from the queue. */
const BATCH_ROWS = 500;

/**
 * The instance's queue of request log entries. `add` costs the request a push onto an array;
 * everything else (redaction, JSON, the INSERTs) runs on a timer after the answer. Reports
 * each entry's outcome as REQUEST_LOG_EVENT on `db` (the metrics count it); never throws.
 */
export class ApiRequestLog {
  private queued: ApiRequestEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  /** `capacity`: the most entries queued (0 records none); `log`: where a failed batch is reported. */
  constructor(
    private readonly db: Knex,
    private readonly log: Logger,
    private readonly capacity: number,
    /** The instance's outage log: a batch lost to a database outage is one line of it, not one warning per batch. */
    private readonly outages?: Pick<OutageLog, 'noteBackground'>,
  ) {}

  /** Queues `entry`; drops (and counts) it when the queue is full. Returns whether it was queued. */
  add(entry: ApiRequestEntry): boolean {
    if (this.queued.length >= this.capacity) {
      this.db.emit(REQUEST_LOG_EVENT, { outcome: 'dropped', count: 1 });
      return false;
    }
    this.queued.push(entry);
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
      this.timer.unref();
    }
    return true;
  }

  /** Writes every queued entry; resolves once they are written (or failed). Never rejects. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(async () => {
      while (this.queued.length) await this.writeBatch(this.queued.splice(0, BATCH_ROWS));
    });
    return this.writing;
  }

  /**
   * One INSERT per business of `batch` (a statement writes one business's rows: on Citus, one
   * node's), one after another: the request log holds at most one of the API pool's
   * connections, and redacts each business's rows just before they are written, so that a
   * large batch does not hold the event loop at once.
   */
  private async writeBatch(batch: ApiRequestEntry[]): Promise<void> {
    const byBusiness = new Map<string, ApiRequestEntry[]>();
    for (const entry of batch) {
      const entries = byBusiness.get(entry.businessId);
      if (entries) entries.push(entry);
      else byBusiness.set(entry.businessId, [entry]);
    }
    for (const [businessId, entries] of byBusiness) {
      try {
        await this.db('api_requests').insert(entries.map(rowOf));
        this.db.emit(REQUEST_LOG_EVENT, { outcome: 'recorded', count: entries.length });
      } catch (err) {
        this.db.emit(REQUEST_LOG_EVENT, { outcome: 'failed', count: entries.length });
        if (!this.outages?.noteBackground(err)) this.log.warn({ err, entries: entries.length, business_id: businessId }, 'request log: a batch could not be written; its entries are lost');
      }
    }
  }
}
