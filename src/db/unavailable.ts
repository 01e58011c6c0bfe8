/**
 * Telling a database outage from a bug. An outage (PostgreSQL down, restarting,
 * refusing connections, the pool unable to get a connection in time) is answered
 * 503 SERVICE_UNAVAILABLE with Retry-After (the seed's status; the conventions: "never
 * 500"), logged once when it starts and once when it ends, and recovers by itself:
 * the pool reconnects on the next request.
 */
import type { Knex } from 'knex';
import type { Logger } from '../log.js';

/** Network errors of a connection that could not be made or was cut. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);
/** SQLSTATE read_only_sql_transaction. */
const READ_ONLY = '25006';

/**
 * True when `err` says the database cannot be reached, rather than that a query is
 * wrong: network errors, SQLSTATE classes 08 (connection exception) and 57P
 * (operator intervention: shutdown, crash recovery, cannot connect now), 53300 (too
 * many connections), 25006 (a write on a read-only server: the connection reaches a
 * former primary, demoted to a standby by a failover, ./failover.ts; the service never
 * makes a transaction read-only itself), and the pool's own time-out or shutdown.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; name?: unknown; message?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  const code = typeof e.code === 'string' ? e.code : '';
  if (NETWORK_CODES.has(code) || code.startsWith('08') || code.startsWith('57P') || code === '53300' || code === READ_ONLY) return true;
  if (e.name === 'KnexTimeoutError') return true;
  const message = typeof e.message === 'string' ? e.message : '';
  // "not queryable": a query (e.g. Knex's ROLLBACK) on a connection that broke earlier.
  return /Connection terminated|connection is closed|Client was closed|Unable to acquire a connection|aborted due to the pool being destroyed|not queryable|Cannot use a pool after calling end/i.test(
    message,
  );
}

/**
 * A query that succeeds this long after the last failure ends an outage. A crashed
 * PostgreSQL's backends do not all go at once: one may still answer a query after
 * another connection failed, and a success then would end the outage only for the
 * next failure to start it again (two lines for one outage).
 */
const SETTLED_MS = 1_000;

/**
 * Logs a database outage once when it is first seen and once when it is over
 * (`note(err)` for each failed request, `noteBackground(err)` for the failures of
 * background work: job queue, outbox relay; the end is a query that succeeds, seen
 * through knex's `query-response` event, SETTLED_MS after the last failure: the outbox
 * relay queries every half second), instead of one stack trace per failed request. One
 * per service instance, shared by the HTTP layer and the background work, so that a
 * database stopped or killed is the same one line whoever meets it first.
 */
export class OutageLog {
  private since: number | null = null;
  private lastFailure = 0;
  private failures = 0;

  constructor(db: Knex, private readonly log: Logger) {
    this.watch(db);
  }

  /** Also ends an outage on a query of pool `db` that succeeds (the background lane's own pool, src/server.ts). */
  watch(db: Knex): void {
    db.on('query-response', () => {
      if (this.since === null || Date.now() - this.lastFailure < SETTLED_MS) return;
      this.log.warn({ outage_ms: Date.now() - this.since, failed_requests: this.failures }, 'database reachable again');
      this.since = null;
      this.failures = 0;
    });
  }

  /** Records one request failed by an outage; logs only the first of each outage. */
  note(err: unknown): void {
    this.failures += 1;
    this.start(err);
  }

  /**
   * Records a failure of background work: true when `err` is an outage (logged as
   * `note` does, without counting a request), false when the caller should report it.
   */
  noteBackground(err: unknown): boolean {
    if (!isDatabaseUnavailable(err)) return false;
    this.start(err);
    return true;
  }

  private start(err: unknown): void {
    this.lastFailure = Date.now();
    if (this.since !== null) return;
    this.since = Date.now();
    const e = err as { code?: string; message?: string };
    this.log.error({ db_error: e.code ?? e.message }, 'database unavailable: answering 503 until it is back');
  }
}
