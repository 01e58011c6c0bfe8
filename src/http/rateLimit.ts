/**
 * Rate limits shared by every instance: rate-limiter-flexible with its PostgreSQL
 * store (table `rate_limits`, migration 008), one fixed window of 60 s per key
 * starting at its first request. Keys:
 * - `client:<client id>` for a request with a valid token (RATE_LIMIT_PER_MINUTE);
 * - `addr:<IP address>` for a request that has not authenticated: no token or a bad
 *   one (counted before its 401 is sent), the token request, provider callbacks
 *   (RATE_LIMIT_PER_ADDRESS_PER_MINUTE; issue 10 fault 3).
 * Two instances therefore allow the documented limit in all, not twice it. When the
 * database cannot be reached, an in-memory limiter of the same size stands in
 * (the library's insurance limiter), so limiting never fails a request itself.
 *
 * Every counted request gets the IETF draft RateLimit header fields
 * (`RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` in seconds); past the
 * limit, 429 RATE_LIMITED with `Retry-After` too. A limit of 0 turns counting off.
 */
import type { Knex } from 'knex';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '../errors.js';

const WINDOW_SECONDS = 60;

/** One limit (requests per minute per key) over the shared store. */
class Limit {
  private readonly limiter?: RateLimiterPostgres;

  constructor(
    db: Knex,
    private readonly perMinute: number,
    keyPrefix: string,
  ) {
    if (perMinute <= 0) return;
    this.limiter = new RateLimiterPostgres({
      storeClient: db,
      storeType: 'knex',
      tableName: 'rate_limits',
      tableCreated: true,
      clearExpiredByTimeout: true,
      keyPrefix,
      points: perMinute,
      duration: WINDOW_SECONDS,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix, points: perMinute, duration: WINDOW_SECONDS }),
    });
  }

  /**
   * Counts one request for `key`; returns the RateLimit headers (none when off).
   * Throws AppError RATE_LIMITED with those headers and `Retry-After` past the limit.
   */
  async hit(key: string): Promise<Record<string, string>> {
    if (!this.limiter) return {};
    let res: RateLimiterRes;
    let limited = false;
    try {
      res = await this.limiter.consume(key, 1);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      res = rejection;
      limited = true;
    }
    const reset = String(Math.max(0, Math.ceil(res.msBeforeNext / 1000)));
    const headers = {
      'RateLimit-Limit': String(this.perMinute),
      'RateLimit-Remaining': String(Math.max(0, res.remainingPoints)),
      'RateLimit-Reset': reset,
    };
    if (limited) {
      throw new AppError('RATE_LIMITED', `Rate limit of ${this.perMinute} requests per minute exceeded.`, {
        headers: { ...headers, 'Retry-After': reset },
      });
    }
    return headers;
  }
}

export class RateLimiter {
  private readonly clients: Limit;
  private readonly addresses: Limit;

  /** Limits per minute: `perClient` for authenticated clients, `perAddress` for the rest (0 = off). */
  constructor(db: Knex, limits: { perClient: number; perAddress: number }) {
    this.clients = new Limit(db, limits.perClient, 'client');
    this.addresses = new Limit(db, limits.perAddress, 'addr');
  }

  /** Counts a request of client `clientId` (see Limit.hit for headers and errors). */
  client(clientId: string): Promise<Record<string, string>> {
    return this.clients.hit(clientId);
  }

  /** Counts an unauthenticated request from `address` (see Limit.hit for headers and errors). */
  address(address: string): Promise<Record<string, string>> {
    return this.addresses.hit(address);
  }
}
