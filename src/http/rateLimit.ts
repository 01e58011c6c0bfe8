/**
 * Fixed-window rate limiter, per key (a client id, or `ip:<address>` for the token
 * request), in process memory, one window per minute. A single instance is enough
 * for the sandbox; a fleet moves the counters to a shared store.
 *
 * Every counted request gets the IETF draft RateLimit header fields
 * (`RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` in seconds); past the
 * limit, 429 RATE_LIMITED with `Retry-After` too.
 */
import { AppError } from '../errors.js';

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly perMinute: number) {}

  /**
   * Counts one request for `key` and returns the headers to send (none when rate
   * limiting is off). Throws AppError RATE_LIMITED, with those headers and
   * `Retry-After`, past the limit.
   */
  hit(key: string, now = Date.now()): Record<string, string> {
    if (this.perMinute <= 0) return {};
    const start = now - (now % 60_000);
    let window = this.windows.get(key);
    if (!window || window.start !== start) {
      if (this.windows.size > 10_000) this.windows.clear();
      window = { start, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    const reset = String(Math.ceil((start + 60_000 - now) / 1000));
    const headers = {
      'RateLimit-Limit': String(this.perMinute),
      'RateLimit-Remaining': String(Math.max(0, this.perMinute - window.count)),
      'RateLimit-Reset': reset,
    };
    if (window.count > this.perMinute) {
      throw new AppError('RATE_LIMITED', `Rate limit of ${this.perMinute} requests per minute exceeded.`, {
        headers: { ...headers, 'Retry-After': reset },
      });
    }
    return headers;
  }
}
