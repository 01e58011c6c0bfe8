/**
 * Load for the benchmark with autocannon: `connections` keep-alive connections
 * on loopback, each request built fresh by its `build` (random wallets, a new
 * Idempotency-Key). Two servers are compared in one scenario by interleaving:
 * both warm up (thrown away), then they take eight short turns in the order
 * A B B A B A A B, so that changes of load on the machine during the scenario
 * (other processes, PostgreSQL's background work) weigh on both alike. Latency
 * percentiles are exact, over every response of a server.
 *
 * CPU per request: around each measured turn, the server's own process, the
 * database cluster and this process (the load generator) are read; their CPU time
 * over a server's turns divided by its responses tells where a request's cost goes
 * on a machine whose cores they all share. The database's readings include its
 * background work (WAL writer, checkpointer, autovacuum), which may land in either
 * server's turns.
 */
import autocannon from 'autocannon';

/** One request as autocannon sends it. */
export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** What a server gave over its measured runs. */
export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Responses other than 2xx, and connection errors or timeouts. */
  failures: number;
  statuses: string;
  /** CPU per response over the measured turns. */
  cpuPerRequest: CpuPerRequest;
}

/** CPU time (ms) used so far by a server's process and by the database cluster. */
export interface CpuReading {
  server: number;
  database: number;
}

/** Milliseconds of CPU per response, by process: the server, the database cluster, the load generator. */
export interface CpuPerRequest {
  server: number;
  database: number;
  load: number;
}

/** A server under load: its base URL, how to build each request, and how to read its CPU time. */
export interface Target {
  url: string;
  build: () => LoadRequest;
  cpu: () => CpuReading;
}

interface Tally {
  seconds: number;
  latencies: number[];
  failures: number;
  statuses: Map<number, number>;
  cpu: CpuPerRequest; // totals (ms) over the measured turns
}

/** CPU time (ms) this process (the load generator) has used so far. */
function loadCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function run(target: Target, connections: number, seconds: number, tally?: Tally): Promise<void> {
  const before = tally && { ...target.cpu(), load: loadCpuMs() };
  const instance = autocannon({
    url: target.url,
    connections,
    duration: seconds,
    requests: [{ setupRequest: (req: object) => ({ ...req, ...target.build() }) } as autocannon.Request],
  }) as unknown as autocannon.Instance & Promise<autocannon.Result>; // both, when called without a callback
  if (tally) {
    instance.on('response', (_client: unknown, status: number, _bytes: number, responseTime: number) => {
      tally.latencies.push(responseTime);
      tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
      if (status < 200 || status > 299) tally.failures++;
    });
  }
  const result = await instance;
  if (tally && before) {
    const after = target.cpu();
    tally.cpu.server += after.server - before.server;
    tally.cpu.database += after.database - before.database;
    tally.cpu.load += loadCpuMs() - before.load;
    tally.seconds += result.duration;
    tally.failures += result.errors + result.timeouts;
  }
}

function summary(t: Tally): LoadResult {
  const sorted = Float64Array.from(t.latencies).sort();
  const pct = (p: number) => (sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]) : NaN);
  return {
    requestsPerSecond: t.latencies.length / t.seconds,
    p50: pct(50),
    p99: pct(99),
    failures: t.failures,
    statuses: [...t.statuses].map(([s, n]) => `${s}×${n}`).join(' '),
    cpuPerRequest: {
      server: t.cpu.server / t.latencies.length,
      database: t.cpu.database / t.latencies.length,
      load: t.cpu.load / t.latencies.length,
    },
  };
}

/**
 * Measures `a` and `b` for `seconds` each (in four turns each, A B B A B A A B)
 * after `warmupSeconds` of warm-up each; returns their results in that order.
 */
export async function comparePair(
  a: Target,
  b: Target,
  opts: { connections: number; seconds: number; warmupSeconds: number },
): Promise<[LoadResult, LoadResult]> {
  const tallies: Tally[] = [a, b].map(() => ({ seconds: 0, latencies: [], failures: 0, statuses: new Map(), cpu: { server: 0, database: 0, load: 0 } }));
  if (opts.warmupSeconds > 0) {
    await run(a, opts.connections, opts.warmupSeconds);
    await run(b, opts.connections, opts.warmupSeconds);
  }
  const turn = opts.seconds / 4;
  for (const i of [0, 1, 1, 0, 1, 0, 0, 1]) await run([a, b][i], opts.connections, turn, tallies[i]);
  return [summary(tallies[0]), summary(tallies[1])];
}
