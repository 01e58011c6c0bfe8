/**
 * Following the primary when it changes (docs/operating.md, "Highly available PostgreSQL").
 * The service reaches the primary through one address (a router such as HAProxy on
 * Patroni's health check, or a managed database's endpoint); when the primary fails, that
 * address leads to the promoted standby a few seconds later. Meanwhile a request
 * meets one of the errors `isDatabaseUnavailable` (./unavailable.ts) recognises: a connection
 * cut or refused, PostgreSQL shutting down (57P01) or starting (57P03), or a connection that
 * still reaches the former primary, now a read-only standby (25006, "cannot execute … in a
 * read-only transaction").
 *
 * Two rules, both here:
 * - The pool keeps no connection across such an error (`followPrimary`, installed by
 *   knexConfig on every pool): the connection that met it is discarded, and so is every
 *   connection opened before it, idle in the pool (they lead to the same former primary).
 *   The next statement opens a fresh connection, which the router sends to the primary.
 * - A request that is safe to send again is sent again, on a fresh connection, until the
 *   database answers or `waitMs` has passed (`withFailoverRetries`, called by the HTTP layer
 *   for reads and for writes with an Idempotency-Key: the key makes a write whose commit
 *   the failure hid take effect once, replayed on the retry). Any other request is answered
 *   503 SERVICE_UNAVAILABLE with Retry-After (src/http/app.ts): its client decides.
 */
import type pg from 'pg';
import { isDatabaseUnavailable } from './unavailable.js';

/** First pause between two attempts of a request (milliseconds), doubled each time up to MAX_PAUSE_MS. */
const FIRST_PAUSE_MS = 100;
const MAX_PAUSE_MS = 1_000;

/** A pool's generation: connections opened before the last failover-class error are stale. */
interface Generations {
  current: number;
  of: WeakMap<pg.Client, number>;
}

/**
 * The pool hooks of a pool that follows the primary: `afterCreate(connection)` marks each new
 * connection with the pool's generation and watches its statements' errors; one that
 * `isDatabaseUnavailable` starts a new generation; `validate(connection)` (knex's pool
 * `validate`, asked before a connection is handed out) refuses a connection of an older one,
 * which the pool then destroys.
 */
export function followPrimary(): { afterCreate(connection: pg.Client): void; validate(connection: pg.Client): boolean } {
  const generations: Generations = { current: 0, of: new WeakMap() };
  return {
    afterCreate(connection) {
      generations.of.set(connection, generations.current);
      watchErrors(connection, () => {
        if (generations.of.get(connection) === generations.current) generations.current += 1;
      });
    },
    validate: (connection) => generations.of.get(connection) === generations.current,
  };
}

/** Calls `failed()` when a statement on `connection` fails with an error `isDatabaseUnavailable` recognises. */
function watchErrors(connection: pg.Client, failed: () => void): void {
  const query = connection.query.bind(connection) as (...args: unknown[]) => unknown;
  const seen = (err: unknown) => {
    if (isDatabaseUnavailable(err)) failed();
  };
  (connection as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const last = args.length - 1;
    if (typeof args[last] === 'function') {
      const callback = args[last] as (err: unknown, result: unknown) => void;
      args[last] = (err: unknown, result: unknown) => {
        if (err) seen(err);
        callback(err, result);
      };
      return query(...args);
    }
    const result = query(...args);
    // The promise form; a submittable (a cursor, a stream) reports its errors itself.
    if (result instanceof Promise) {
      return result.catch((err: unknown) => {
        seen(err);
        throw err;
      });
    }
    return result;
  };
}

/**
 * Runs `attempt`; when `safe` and it fails with an error `isDatabaseUnavailable` recognises,
 * runs it again after a pause (100 ms, doubled up to 1 s) until it does not, or until
 * `waitMs` have passed since the first attempt. Throws what the last attempt threw (the HTTP layer answers a database that stayed
 * unreachable 503 with Retry-After).
 */
export async function withFailoverRetries<T>(safe: boolean, waitMs: number, attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
    try {
      return await attempt();
    } catch (err) {
      if (!safe || !isDatabaseUnavailable(err) || Date.now() + pause > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
