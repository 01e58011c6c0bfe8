/**
 * Concurrency per webhook endpoint that adapts to the endpoint's answers: additive
 * increase, multiplicative decrease (AIMD), the rule of TCP's congestion window (RFC
 * 5681) and of Netflix's concurrency-limits `AIMDLimit`.
 *
 * Each endpoint has a limit of attempts in flight from this instance, starting at
 * INITIAL_LIMIT:
 * - an answer that says "too much" (429, any 5xx, a time-out or a failed connection)
 *   halves it, at most once per round: an attempt started before the last decrease
 *   does not decrease it again, so a burst of refusals to attempts sent together counts
 *   once, as a lost window does in TCP;
 * - a 2xx adds 1 / limit, so the limit grows by one per limit's worth of successes,
 *   up to MAX_LIMIT;
 * - any other answer (a 4xx but 429, a refused address; see ./sender.ts for the
 *   `URL not allowed` error) says nothing about load and leaves it.
 * An attempt beyond the limit waits in the instance, in order of arrival, for at most
 * the wait it is given; one that waited that long is not made (`acquire` answers null)
 * and the caller puts it back in the queue for later. Each instance keeps its own
 * limits (a cache of what it has seen: N instances offer an endpoint up to N × limit).
 */

/** What an attempt's answer tells about the endpoint's load. */
export type Signal = 'ok' | 'overload' | 'neutral';

/** Limit of a new endpoint, and its bounds. */
export const INITIAL_LIMIT = 16;
export const MIN_LIMIT = 1;
export const MAX_LIMIT = 128;

/** Endpoints whose state is kept; past it, idle ones are forgotten (they start again at INITIAL_LIMIT). */
const MAX_ENDPOINTS = 10_000;

/** The signal of an attempt that answered `statusCode` (null: no answer) with `error`. */
export function signalOf(statusCode: number | null, error: string | null): Signal {
  if (statusCode === null) return error?.startsWith('URL not allowed') ? 'neutral' : 'overload';
  if (statusCode === 429 || statusCode >= 500) return 'overload';
  return statusCode >= 200 && statusCode < 300 ? 'ok' : 'neutral';
}

interface Waiter {
  grant(): void;
}

interface EndpointState {
  limit: number;
  inFlight: number;
  waiting: Waiter[];
  /** performance.now() of the last decrease. */
  decreasedAt: number;
}

/** A slot held by one attempt: `release` it with what the answer said. */
export interface Slot {
  release(signal: Signal): void;
}

/** The limits of one instance (one per process, held by the delivery workers). */
export class EndpointConcurrency {
  private readonly endpoints = new Map<string, EndpointState>();

  /** The current limit of `endpointId` (INITIAL_LIMIT for one not seen). */
  limitOf(endpointId: string): number {
    return Math.floor(this.endpoints.get(endpointId)?.limit ?? INITIAL_LIMIT);
  }

  /**
   * A slot for one attempt to `endpointId`: at once while fewer than its limit are in
   * flight, else after those ahead of it, or null after `waitMs` (or when `signal`
   * aborts) without one.
   */
  acquire(endpointId: string, waitMs: number, signal?: AbortSignal): Promise<Slot | null> {
    const state = this.stateOf(endpointId);
    if (state.waiting.length === 0 && state.inFlight < Math.floor(state.limit)) return Promise.resolve(this.grant(state));
    return new Promise((resolve) => {
      const give = (slot: Slot | null) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', giveUp);
        resolve(slot);
      };
      const waiter: Waiter = { grant: () => give(this.grant(state)) };
      const giveUp = () => {
        const i = state.waiting.indexOf(waiter);
        if (i >= 0) state.waiting.splice(i, 1);
        give(null);
      };
      const timer = setTimeout(giveUp, waitMs);
      signal?.addEventListener('abort', giveUp, { once: true });
      state.waiting.push(waiter);
    });
  }

  private stateOf(endpointId: string): EndpointState {
    let state = this.endpoints.get(endpointId);
    if (!state) {
      if (this.endpoints.size >= MAX_ENDPOINTS) this.forgetIdle();
      state = { limit: INITIAL_LIMIT, inFlight: 0, waiting: [], decreasedAt: -Infinity };
      this.endpoints.set(endpointId, state);
    }
    return state;
  }

  private grant(state: EndpointState): Slot {
    state.inFlight++;
    const startedAt = performance.now();
    let released = false;
    return {
      release: (signal) => {
        if (released) return;
        released = true;
        state.inFlight--;
        if (signal === 'ok') state.limit = Math.min(MAX_LIMIT, state.limit + 1 / state.limit);
        else if (signal === 'overload' && startedAt >= state.decreasedAt) {
          state.limit = Math.max(MIN_LIMIT, state.limit / 2);
          state.decreasedAt = performance.now();
        }
        this.wakeNext(state);
      },
    };
  }

  /** Grants waiting attempts while the limit allows. */
  private wakeNext(state: EndpointState): void {
    while (state.waiting.length > 0 && state.inFlight < Math.floor(state.limit)) state.waiting.shift()!.grant();
  }

  /** Forgets endpoints with nothing in flight and nothing waiting. */
  private forgetIdle(): void {
    for (const [id, s] of this.endpoints) if (s.inFlight === 0 && s.waiting.length === 0) this.endpoints.delete(id);
  }
}
