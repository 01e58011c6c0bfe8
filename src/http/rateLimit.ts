/**
 * Rate limits shared by every instance: rate-limiter-flexible with its PostgreSQL
 * store (table `rate_limits`, src/db/migrations/024_baseline.ts), one fixed window of
 * 60 s per key starting at its first request. Keys:
 * - `client:<client id>` for a request with a valid token (RATE_LIMIT_PER_MINUTE);
 * - `addr:<IP address>` for a request that has not authenticated: no token or a bad
 *   one (counted before its 401 is sent), the token request, provider callbacks
 *   (RATE_LIMIT_PER_ADDRESS_PER_MINUTE);
 * - `signin:<IP address>` for a portal sign-in, counted before its password is checked
 *   (SIGN_IN_RATE_LIMIT_PER_ADDRESS_PER_MINUTE): a flood of guesses from one address is
 *   refused before it costs a password hash each.
 * Two instances therefore allow the documented limit in all, not twice it; each takes
 * points from the store in small leases (see Limit) so that counting costs a store round
 * trip per lease, not per request. When the
 * database cannot be reached, an in-memory limiter of the same size stands in
 * (the library's insurance limiter), so limiting never fails a request itself.
 *
 * Every counted request gets the IETF draft RateLimit header fields
 * (`RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` in seconds); past the
 * limit, 429 RATE_LIMITED with `Retry-After` too. A limit of 0 turns counting off.
 */
import type { Knex } from 'knex';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '../kernel/errors.js';

const WINDOW_SECONDS = 60;

/** Points an instance holds for a key: taken from the shared store, spent locally. */
interface Lease {
  /** Points left to spend here. */
  left: number;
  /** What the store had left for the key after this lease was taken. */
  storeLeft: number;
  /** End of the key's window (epoch ms). */
  resetAt: number;
  /** The store refused: the window is used up, everywhere, until `resetAt`. */
  exhausted: boolean;
}

/** Most keys whose leases an instance keeps (a cache: dropping one only costs a store call). */
const MAX_LEASES = 10_000;

/** Smallest lease refilled ahead (see Limit); smaller ones (limits under 1,000 a minute) stay exact. */
const REFILL_AHEAD_MIN = 10;

/**
 * One limit (requests per minute per key) over the shared store. Each instance
 * takes points from the store a few at a time (a lease: 1 % of the limit, at
 * least 1 and at most 100) and spends them locally, so that a busy key costs one
 * store round trip per lease rather than per request. The store never hands out
 * more than the limit, so all instances together never admit more than the
 * limit; points leased and not spent before the window ends are lost, so a key
 * may be refused up to (lease − 1) × instances requests early. Limits under 200
 * lease one point at a time: exact.
 *
 * Leases of REFILL_AHEAD_MIN points or more are refilled ahead: when half of one
 * is spent, the next is taken in the background and added to it, so that a busy
 * key's requests do not all wait for the store each time a lease runs out (under
 * load that wait, a round trip through a busy pool, landed on whole bursts of
 * requests and set the p99 latency). An instance then holds up to 1.5 leases, and
 * a key may be refused up to (1.5 × lease − 1) × instances requests early.
 */
class Limit {
  private readonly limiter?: RateLimiterPostgres;
  private readonly lease: number;
  private readonly leases = new Map<string, Lease>();
  /** Store calls in flight, by key: concurrent requests of a key share one. */
  private readonly taking = new Map<string, Promise<void>>();

  constructor(
    db: Knex,
    private readonly perMinute: number,
    keyPrefix: string,
  ) {
    this.lease = Math.min(100, Math.max(1, Math.floor(perMinute / 100)));
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
    for (;;) {
      const now = Date.now();
      const lease = this.leases.get(key);
      if (lease && lease.resetAt > now) {
        if (lease.left > 0) {
          lease.left -= 1;
          if (this.lease >= REFILL_AHEAD_MIN && lease.left * 2 <= this.lease && !lease.exhausted) {
            this.take(key).catch(() => undefined); // in the background; a request that finds the lease empty waits for it
          }
          return this.headers(lease.left + lease.storeLeft, lease.resetAt - now);
        }
        if (lease.exhausted) {
          const headers = this.headers(0, lease.resetAt - now);
          throw new AppError('RATE_LIMITED', `Rate limit of ${this.perMinute} requests per minute exceeded.`, {
            headers: { ...headers, 'Retry-After': headers['RateLimit-Reset'] },
          });
        }
      }
      await this.take(key);
    }
  }

  /** Takes a lease for `key` from the store (one call at a time per key, shared by its waiting requests). */
  private take(key: string): Promise<void> {
    let taking = this.taking.get(key);
    if (!taking) {
      taking = this.takeFromStore(key).finally(() => this.taking.delete(key));
      this.taking.set(key, taking);
    }
    return taking;
  }

  private async takeFromStore(key: string): Promise<void> {
    let res: RateLimiterRes;
    let refused = false;
    try {
      res = await this.limiter!.consume(key, this.lease);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      res = rejection;
      refused = true;
    }
    // Refused: the points of this lease that still fitted under the limit are ours.
    const granted = refused ? Math.max(0, Math.min(this.lease, this.perMinute - (res.consumedPoints - this.lease))) : this.lease;
    const now = Date.now();
    const resetAt = now + res.msBeforeNext;
    const current = this.leases.get(key);
    // A lease refilled ahead adds to what is left of the current one, if both are of the same
    // window (the store's window ends at one moment; a later end is a new window).
    const carried = current && current.resetAt > now && resetAt - current.resetAt < 1000 ? current.left : 0;
    if (this.leases.size >= MAX_LEASES) this.leases.clear();
    this.leases.set(key, {
      left: carried + granted,
      storeLeft: Math.max(0, res.remainingPoints),
      resetAt,
      exhausted: refused,
    });
  }

  private headers(remaining: number, msBeforeReset: number): Record<string, string> {
    return {
      'RateLimit-Limit': String(this.perMinute),
      'RateLimit-Remaining': String(Math.max(0, remaining)),
      'RateLimit-Reset': String(Math.max(1, Math.ceil(msBeforeReset / 1000))),
    };
  }
}

/**
 * The service's two rate limits (see the module comment): per authenticated client and per
 * address of unauthenticated requests. Each count resolves to the RateLimit header fields
 * or rejects with AppError RATE_LIMITED (429, with `Retry-After`) past the limit.
 */
export class RateLimiter {
  private readonly clients: Limit;
  private readonly addresses: Limit;
  private readonly signIns: Limit;

  /** Limits per minute: `perClient` for authenticated clients, `perAddress` for the rest, `perSignInAddress` for sign-ins (0 = off). */
  constructor(db: Knex, limits: { perClient: number; perAddress: number; perSignInAddress?: number }) {
    this.clients = new Limit(db, limits.perClient, 'client');
    this.addresses = new Limit(db, limits.perAddress, 'addr');
    this.signIns = new Limit(db, limits.perSignInAddress ?? 0, 'signin');
  }

  /** Counts a sign-in from `address` (see Limit.hit for headers and errors). */
  signIn(address: string): Promise<Record<string, string>> {
    return this.signIns.hit(address);
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
