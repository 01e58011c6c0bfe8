/**
 * Fixed-window rate limiter, per client, in process memory (one window per
 * minute). A single instance is enough for the sandbox; a fleet would move the
 * counters to a shared store.
 */
import { AppError } from '../errors.js';

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly perMinute: number) {}

  /** Counts one request for `key`; throws AppError RATE_LIMITED with Retry-After past the limit. */
  hit(key: string, now = Date.now()): void {
    if (this.perMinute <= 0) return;
    const start = now - (now % 60_000);
    let window = this.windows.get(key);
    if (!window || window.start !== start) {
      if (this.windows.size > 10_000) this.windows.clear();
      window = { start, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    if (window.count > this.perMinute) {
      const retryAfter = Math.ceil((start + 60_000 - now) / 1000);
      throw new AppError('RATE_LIMITED', `Rate limit of ${this.perMinute} requests per minute exceeded.`, {
        headers: { 'Retry-After': String(retryAfter) },
      });
    }
  }
}
