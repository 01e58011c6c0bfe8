/**
 * The retry schedule of webhook deliveries ("retries with backoff over about
 * three days"), documented as the same table in openapi/*.yaml and openapi/DESIGN.md.
 *
 * | attempt | sent after the previous failed attempt | total since the first |
 * |---|---|---|
 * | 1 | immediately | 0 |
 * | 2 | 5 seconds | 5 s |
 * | 3 | 5 minutes | ~5 min |
 * | 4 | 30 minutes | ~35 min |
 * | 5 | 2 hours | ~2.6 h |
 * | 6 | 5 hours | ~7.6 h |
 * | 7 | 10 hours | ~17.6 h |
 * | 8 | 14 hours | ~31.6 h |
 * | 9 | 20 hours | ~51.6 h |
 * | 10 | 24 hours | ~75.6 h (3.15 days) |
 *
 * After the 10th failed attempt the delivery is FAILED. A receiver's `Retry-After`
 * (seconds or an HTTP date, on any failed answer) postpones the next attempt to that
 * time when it is later than the schedule's, at most 24 hours; it does not add attempts.
 * `WEBHOOK_RETRY_SCALE` (config) multiplies the table's delays (not `Retry-After`):
 * 1 in production; the tests use a small scale so that a whole schedule runs in seconds.
 */

/** Delay before attempt n+1 (index n-1), in seconds, for n = 1..9. */
export const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 14 * 3600, 20 * 3600, 24 * 3600] as const;

/** Attempts per delivery. */
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** Longest wait a `Retry-After` may ask for. */
export const MAX_RETRY_AFTER_SECONDS = 24 * 3600;

/**
 * Seconds from `now` that a `Retry-After` header value asks for (delta-seconds or an
 * HTTP date), capped at 24 hours; null when absent or unreadable.
 */
export function retryAfterSeconds(value: string | null | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  let seconds: number;
  if (/^\d+$/.test(trimmed)) seconds = Number(trimmed);
  else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return null;
    seconds = Math.max(0, (at - now) / 1000);
  }
  return Math.min(seconds, MAX_RETRY_AFTER_SECONDS);
}

/**
 * When attempt `attempt + 1` is due after attempt `attempt` failed at `now`, or null
 * when `attempt` was the last. `scale` multiplies the schedule; `retryAfter` (seconds)
 * is the receiver's wish, honoured when later.
 */
export function nextAttemptAt(attempt: number, now: Date, scale: number, retryAfter: number | null): Date | null {
  if (attempt >= MAX_ATTEMPTS) return null;
  const scheduled = RETRY_DELAYS_SECONDS[attempt - 1]! * 1000 * scale;
  const wished = retryAfter === null ? 0 : retryAfter * 1000;
  return new Date(now.getTime() + Math.max(scheduled, wished));
}
