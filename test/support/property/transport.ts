/**
 * Sending a property run's requests: each attempt goes to one of the live service
 * instances through the contract-checked test client, so every response is validated
 * against the OpenAPI documents. An instance can be marked down (it is about to be
 * killed): attempts already sent to it may then lose their connection, which is recorded
 * as unacknowledged instead of failing the run.
 */
import { createHash } from 'node:crypto';
import { request } from '../client.js';
import type { Attempt } from './model.js';

/** JSON with object keys sorted, so that equal bodies have equal digests whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value as object).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A short digest of a response body (key order does not matter). */
export const digestOf = (body: unknown): string => createHash('sha256').update(canonical(body)).digest('hex').slice(0, 24);

/** A failure of the connection rather than an answer (undici's fetch errors). */
function isConnectionError(err: unknown): boolean {
  return err instanceof TypeError && /fetch failed|terminated|other side closed|socket/i.test(err.message);
}

/** The service instances a run spreads its requests over. */
export class Instances {
  private live: string[];
  /** Bumped each time an instance is marked down; attempts remember the value they were sent under. */
  private readonly downs = new Map<string, number>();
  private readonly flying = new Map<string, number>();
  requests = 0;

  constructor(urls: string[]) {
    if (!urls.length) throw new Error('a run needs at least one instance');
    this.live = [...urls];
  }

  /** The instances requests may go to now. */
  list(): readonly string[] {
    return this.live;
  }

  /** Requests in flight to `url`. */
  inFlight(url: string): number {
    return this.flying.get(url) ?? 0;
  }

  /** Stops sending to `url` (it is about to be killed); its requests in flight may drop. */
  markDown(url: string): void {
    this.live = this.live.filter((u) => u !== url);
    this.downs.set(url, (this.downs.get(url) ?? 0) + 1);
  }

  /** Sends to `url` again (a restarted instance, on a fresh address). */
  markUp(url: string): void {
    if (!this.live.includes(url)) this.live.push(url);
  }

  /** Sends `attempt` with `token` and records its outcome on it; never throws. */
  async send(attempt: Attempt, token: string): Promise<void> {
    const url = attempt.instance;
    const downsAtSend = this.downs.get(url) ?? 0;
    this.flying.set(url, this.inFlight(url) + 1);
    this.requests++;
    try {
      const res = await request(attempt.method, attempt.path, { baseUrl: url, token, body: attempt.body, idempotencyKey: attempt.key });
      attempt.status = res.status;
      attempt.replayed = res.headers.get('idempotent-replayed') === 'true';
      if (res.status >= 400) attempt.code = typeof res.body?.code === 'string' ? res.body.code : undefined;
      if (res.status === 201 || res.status === 200) {
        attempt.id = res.body.id;
        attempt.type = res.body.type;
        attempt.amount = res.body.amount;
        attempt.digest = digestOf(res.body);
      } else if (res.status >= 500) {
        attempt.error = `${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`;
      }
    } catch (err) {
      if (isConnectionError(err) && (this.downs.get(url) ?? 0) > downsAtSend) {
        attempt.unacknowledged = true;
      } else {
        attempt.error = err instanceof Error ? `${err.message}${err.cause ? ` (${String((err.cause as Error).message ?? err.cause)})` : ''}` : String(err);
      }
    } finally {
      this.flying.set(url, this.inFlight(url) - 1);
    }
  }
}
