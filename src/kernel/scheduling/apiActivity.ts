/**
 * The API requests this process is serving, as the background lane (./background.ts) needs
 * to know them: whether a request was in flight at any moment of a piece of its work. The
 * HTTP layer reports each request from its arrival to its answer (src/http/app.ts,
 * `beginApiRequest`); the lane watches a piece of work (`watchApiRequests`) and rests after
 * it only when a request overlapped it.
 *
 * Why a rest needs a request: the rest leaves the database's CPU, its WAL flushes and the
 * event loop to the API's requests (./background.ts). When no request came while the lane
 * worked, none is expected to be waiting, and a rest only delays the lane's own work: a bulk
 * payout's processing and its deliveries, which a webhook receiver is waiting for.
 *
 * Counters of this process only (each instance's lane is its own), never stored: an API node
 * stays stateless.
 */

/** Requests begun and not yet answered. */
let inFlight = 0;
/** Requests begun since the process started (only compared, so it may grow without bound). */
let begun = 0;

/**
 * Reports an API request's arrival; returns the function that reports its answer (calling
 * it again does nothing, so that a `finally` and an error path may both call it).
 */
export function beginApiRequest(): () => void {
  inFlight += 1;
  begun += 1;
  let answered = false;
  return () => {
    if (answered) return;
    answered = true;
    inFlight -= 1;
  };
}

/** A piece of work's view of the API's requests, from its `watchApiRequests` call on. */
export interface ApiRequestWatch {
  /** Whether a request was in flight at any moment since the watch began: one in flight then, or one that began since. */
  overlapped(): boolean;
}

/** Starts watching the API's requests (see ApiRequestWatch). */
export function watchApiRequests(): ApiRequestWatch {
  const busyAtStart = inFlight > 0;
  const begunAtStart = begun;
  return { overlapped: () => busyAtStart || begun !== begunAtStart };
}
