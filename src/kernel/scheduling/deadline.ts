/**
 * A signal for one outbound call that aborts when either its own deadline passes or a
 * long-lived signal (the instance's shutdown) aborts, and leaves nothing behind once the
 * call is over.
 *
 * Why not `AbortSignal.any([shutdown, AbortSignal.timeout(ms)])`: in Node 20 every signal
 * composed with a long-lived one stays registered on it (a WeakRef and its cell per call,
 * never pruned), and each `AbortSignal.timeout` keeps its timer until it fires, so the
 * deliveries of ten bulk payouts leave tens of thousands of WeakRefs and pending timers in
 * the heap; a deadline here is one timer and one listener, both removed by `dispose()`.
 */
export interface Deadline {
  /** Aborts at the deadline or when the outer signal does. */
  signal: AbortSignal;
  /** True when it was the deadline that aborted `signal`. */
  timedOut(): boolean;
  /** Clears the timer and the listener on the outer signal (idempotent). Call once the call is over. */
  dispose(): void;
}

/** A deadline of `ms` milliseconds from now, also aborted by `outer`. */
export function deadline(outer: AbortSignal, ms: number): Deadline {
  const controller = new AbortController();
  let expired = false;
  const onOuter = (): void => controller.abort(outer.reason);
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError'));
  }, ms);
  timer.unref(); // an outbound call does not keep a stopping process alive
  if (outer.aborted) onOuter();
  else outer.addEventListener('abort', onOuter, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => expired,
    dispose() {
      clearTimeout(timer);
      outer.removeEventListener('abort', onOuter);
    },
  };
}
