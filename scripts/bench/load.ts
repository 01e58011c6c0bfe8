/**
 * Load for the benchmark with autocannon: `connections` keep-alive connections
 * on loopback, each request built fresh by `build` (random wallets, a new
 * Idempotency-Key), a warm-up run that is thrown away, then the measured run.
 */
import autocannon from 'autocannon';

/** One request as autocannon sends it. */
export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** What one measured run gave. */
export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Responses other than 2xx, and connection errors or timeouts. */
  failures: number;
  statuses: string;
}

function run(url: string, build: () => LoadRequest, connections: number, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections,
    duration: seconds,
    requests: [{ setupRequest: (req: object) => ({ ...req, ...build() }) } as autocannon.Request],
  });
}

/** Warms `url` up for `warmupSeconds`, then measures `seconds` of load. */
export async function measure(
  url: string,
  build: () => LoadRequest,
  opts: { connections: number; seconds: number; warmupSeconds: number },
): Promise<LoadResult> {
  if (opts.warmupSeconds > 0) await run(url, build, opts.connections, opts.warmupSeconds);
  const r = await run(url, build, opts.connections, opts.seconds);
  const statusCodes = (r as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
  return {
    requestsPerSecond: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    failures: r.non2xx + r.errors + r.timeouts,
    statuses: Object.entries(statusCodes).map(([s, { count }]) => `${s}×${count}`).join(' '),
  };
}
