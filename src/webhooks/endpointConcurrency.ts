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
 * the wait it is given; one that waited that long, or whose wait would be longer (the
 * attempts ahead of it at the limit, each lasting as long as the endpoint's recent
 * attempts or its oldest in flight), is not made (`acquire` answers null) and the caller
 * puts it back in the queue, due `deferMs` later: an endpoint that answers slowly or not
 * at all holds its limit's attempts and the short waits of the instance, whatever its
 * backlog, and the deliveries to other endpoints never queue behind it. Each instance keeps its own
 * limits (a cache of what it has seen: N instances offer an endpoint up to N × limit).
 */

/** What an attempt's answer tells about the endpoint's load. */
export type Signal = 'ok' | 'overload' | 'neutral';

/** Limit of a new endpoint, and its bounds. */
export const INITIAL_LIMIT = 16;
export const MIN_LIMIT = 1;
export const MAX_LIMIT = 128;

/** Bounds of the delay before an attempt not made for want of a slot is due again (`deferMs`). */
export const MIN_DEFER_MS = 1_000;
export const MAX_DEFER_MS = 30_000;

/** Weight of the latest attempt in an endpoint's mean duration (an exponentially weighted mean). */
const LATENCY_WEIGHT = 0.2;

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
  /** Mean duration of its recent attempts, in ms (0 before the first). */
  latencyMs: number;
  /** performance.now() of each attempt in flight's start. */
  started: Set<{ at: number }>;
}

/** A slot held by one attempt: `release` it with what the answer said (and, for an attempt made, how long it took). */
export interface Slot {
  release(signal: Signal, latencyMs?: number): void;
}

/** The limits of one instance (one per process, held by the delivery workers). */
export class EndpointConcurrency {
  private readonly endpoints = new Map<string, EndpointState>();

  /** The current limit of `endpointId` (INITIAL_LIMIT for one not seen). */
  limitOf(endpointId: string): number {
    return Math.floor(this.endpoints.get(endpointId)?.limit ?? INITIAL_LIMIT);
  }

  /**
   * How long to put back an attempt to `endpointId` that got no slot, in ms: the time its
   * attempts in flight and waiting take at its limit and its recent attempts' mean
   * duration, from MIN_DEFER_MS to MAX_DEFER_MS (an endpoint whose attempts last until
   * the time-out has its backlog come back in tens of seconds, not every second).
   */
  deferMs(endpointId: string): number {
    const state = this.endpoints.get(endpointId);
    if (!state) return MIN_DEFER_MS;
    const rounds = Math.ceil((state.inFlight + state.waiting.length + 1) / Math.floor(state.limit));
    return Math.round(Math.min(MAX_DEFER_MS, Math.max(MIN_DEFER_MS, rounds * this.attemptMs(state))));
  }

  /** How long an attempt to the endpoint lasts, as far as this instance knows: its recent mean, or its oldest attempt in flight's age when longer. */
  private attemptMs(state: EndpointState): number {
    let oldest = Infinity;
    for (const s of state.started) oldest = Math.min(oldest, s.at);
    return Math.max(state.latencyMs, oldest === Infinity ? 0 : performance.now() - oldest);
  }

  /** How long a new attempt would wait for a slot: its rounds behind those waiting, each an attempt long. */
  private expectedWaitMs(state: EndpointState): number {
    return Math.ceil((state.waiting.length + 1) / Math.floor(state.limit)) * this.attemptMs(state);
  }

  /**
   * A slot for one attempt to `endpointId`: at once while fewer than its limit are in
   * flight, else after those ahead of it, or null after `waitMs` (or when `signal`
   * aborts) without one, and null at once when the expected wait (see the module
   * comment) is longer than `waitMs`.
   */
  acquire(endpointId: string, waitMs: number, signal?: AbortSignal): Promise<Slot | null> {
    const state = this.stateOf(endpointId);
    if (state.waiting.length === 0 && state.inFlight < Math.floor(state.limit)) return Promise.resolve(this.grant(state));
    if (this.expectedWaitMs(state) > waitMs) return Promise.resolve(null);
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
      state = { limit: INITIAL_LIMIT, inFlight: 0, waiting: [], decreasedAt: -Infinity, latencyMs: 0, started: new Set() };
      this.endpoints.set(endpointId, state);
    }
    return state;
  }

  private grant(state: EndpointState): Slot {
    state.inFlight++;
    const startedAt = performance.now();
    const start = { at: startedAt };
    state.started.add(start);
    let released = false;
    return {
      release: (signal, latencyMs) => {
        if (released) return;
        released = true;
        state.inFlight--;
        state.started.delete(start);
        if (latencyMs !== undefined) state.latencyMs = state.latencyMs === 0 ? latencyMs : state.latencyMs + LATENCY_WEIGHT * (latencyMs - state.latencyMs);
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
