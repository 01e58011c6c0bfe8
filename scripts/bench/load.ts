/**
 * Load for the benchmark with autocannon: `connections` keep-alive connections
 * on loopback, each request built fresh by its `build` (random wallets, a new
 * Idempotency-Key). Two servers are compared in one scenario by interleaving:
 * both warm up (thrown away), then they take eight short turns in the order
 * A B B A B A A B, so that changes of load on the machine during the scenario
 * (other processes, PostgreSQL's background work) weigh on both alike. Latency
 * percentiles are exact, over every response of a server but the first on each
 * connection of a turn: each turn opens its `connections` at once, and the first
 * requests of all of them arrive together, on a server and a database that were
 * idle for the other server's turn. With four turns a server, those set-up bursts
 * would be about 3 % of its responses (200 of some 7,000 at 50 connections), so
 * its p99 would be the burst's latency rather than the load's; one continuous run
 * would have one burst (0.7 %). Those responses still count in req/s, statuses
 * and failures, and the share left out is printed.
 *
 * CPU per request: around each measured turn, the server's own process, the
 * database cluster and this process (the load generator) are read; their CPU time
 * over a server's turns divided by its responses tells where a request's cost goes
 * on a machine whose cores they all share. The database's readings include its
 * background work (WAL writer, checkpointer, autovacuum), which may land in either
 * server's turns.
 */
import http from 'node:http';
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
  /** p99 over every response, the first on each connection of a turn included. */
  p99All: number;
  /** Responses left out of p50 and p99 (the first on each connection of a turn). */
  setupResponses: number;
  /** Responses other than 2xx, and connection errors or timeouts. */
  failures: number;
  /** Responses by status, and `error×n` for connection errors and time-outs, e.g. `201×15607 error×2`. */
  statuses: string;
  /** CPU per response over the measured turns. */
  cpuPerRequest: CpuPerRequest;
  /** PostgreSQL's execution time per response (ms, pg_stat_statements), when the target reads it. */
  statementMsPerRequest: number | null;
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

/**
 * A server under load: its base URL, how to build each request, how to read its CPU time,
 * and, optionally, the execution time PostgreSQL has spent on its statements so far (ms).
 */
export interface Target {
  url: string;
  build: () => LoadRequest;
  cpu: () => CpuReading;
  statementMs?: () => Promise<number>;
}

interface Tally {
  seconds: number;
  /** Latencies (ms) of the responses after the first on each connection of a turn. */
  latencies: number[];
  /** Latencies (ms) of the first response on each connection of a turn. */
  setupLatencies: number[];
  failures: number;
  statuses: Map<string, number>;
  cpu: CpuPerRequest; // totals (ms) over the measured turns
  statementMs: number | null; // total (ms) over the measured turns, when read
}

/** CPU time (ms) this process (the load generator) has used so far. */
function loadCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function run(target: Target, connections: number, seconds: number, tally?: Tally): Promise<void> {
  const before = tally && { ...target.cpu(), load: loadCpuMs(), statements: await target.statementMs?.() };
  const instance = autocannon({
    url: target.url,
    connections,
    duration: seconds,
    requests: [{ setupRequest: (req: object) => ({ ...req, ...target.build() }) } as autocannon.Request],
  }) as unknown as autocannon.Instance & Promise<autocannon.Result>; // both, when called without a callback
  if (tally) {
    const connected = new Set<unknown>(); // connections whose first response has come
    instance.on('response', (client: unknown, status: number, _bytes: number, responseTime: number) => {
      if (connected.has(client)) tally.latencies.push(responseTime);
      else {
        connected.add(client);
        tally.setupLatencies.push(responseTime);
      }
      tally.statuses.set(String(status), (tally.statuses.get(String(status)) ?? 0) + 1);
      if (status < 200 || status > 299) tally.failures++;
    });
  }
  const result = await instance;
  if (tally && before) {
    const after = target.cpu();
    tally.cpu.server += after.server - before.server;
    tally.cpu.database += after.database - before.database;
    tally.cpu.load += loadCpuMs() - before.load;
    if (before.statements !== undefined && target.statementMs) tally.statementMs = (tally.statementMs ?? 0) + (await target.statementMs()) - before.statements;
    tally.seconds += result.duration;
    tally.failures += result.errors + result.timeouts;
    if (result.errors + result.timeouts) tally.statuses.set('error', (tally.statuses.get('error') ?? 0) + result.errors + result.timeouts);
  }
}

/**
 * The exact p-th percentile (nearest rank) of `latencies` (ms), not rounded: the targets
 * are ratios of two percentiles, and at 5 ms a rounding to the ms would move a ratio by up
 * to a tenth (11 / 5 = 2.20 for 10.6 / 5.4 = 1.96, or 1.83 for 11.4 / 5.6 = 2.04).
 */
function percentile(latencies: number[], p: number): number {
  const sorted = Float64Array.from(latencies).sort();
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN;
}

function summary(t: Tally): LoadResult {
  const responses = t.latencies.length + t.setupLatencies.length; // every one counts in req/s and CPU
  return {
    requestsPerSecond: responses / t.seconds,
    p50: percentile(t.latencies, 50),
    p99: percentile(t.latencies, 99),
    p99All: percentile([...t.latencies, ...t.setupLatencies], 99),
    setupResponses: t.setupLatencies.length,
    failures: t.failures,
    statuses: [...t.statuses].map(([s, n]) => `${s}×${n}`).join(' '),
    cpuPerRequest: {
      server: t.cpu.server / responses,
      database: t.cpu.database / responses,
      load: t.cpu.load / responses,
    },
    statementMsPerRequest: t.statementMs === null ? null : t.statementMs / responses,
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
  const tallies: Tally[] = [a, b].map(() => ({ seconds: 0, latencies: [], setupLatencies: [], failures: 0, statuses: new Map(), cpu: { server: 0, database: 0, load: 0 }, statementMs: null }));
  if (opts.warmupSeconds > 0) {
    await run(a, opts.connections, opts.warmupSeconds);
    await run(b, opts.connections, opts.warmupSeconds);
  }
  const turn = opts.seconds / 4;
  for (const i of [0, 1, 1, 0, 1, 0, 0, 1]) await run([a, b][i], opts.connections, turn, tallies[i]);
  return [summary(tallies[0]), summary(tallies[1])];
}

/**
 * Measures `target` alone: `warmupSeconds` thrown away, then `seconds` in one turn (the
 * first response on each connection left out of p50 and p99, as in comparePair). For
 * comparing one server with itself at two moments (scripts/bench/growth.ts), where turns
 * cannot interleave.
 */
export async function measure(target: Target, opts: { connections: number; seconds: number; warmupSeconds: number }): Promise<LoadResult> {
  const tally: Tally = { seconds: 0, latencies: [], setupLatencies: [], failures: 0, statuses: new Map(), cpu: { server: 0, database: 0, load: 0 }, statementMs: null };
  if (opts.warmupSeconds > 0) await run(target, opts.connections, opts.warmupSeconds);
  await run(target, opts.connections, opts.seconds, tally);
  return summary(tally);
}

/** Latencies of a paced load (see pacedLoad). */
export interface PacedResult {
  responses: number;
  p50: number;
  p99: number;
  /** Responses other than 2xx, and requests that failed or had no answer. */
  failures: number;
  /** Responses by status, and `error` for requests without one, e.g. `200×1480 201×1431`. */
  statuses: string;
}

/**
 * A steady load of `rate` requests per second, one every 1/rate s whatever the answers
 * (an open loop, as independent clients arrive), each request built by `build`, over
 * keep-alive connections, until `stop()`: other traffic whose latency is measured while
 * something else loads the server. Every response counts in its percentiles, from the
 * moment its request was due. (autocannon's `overallRate` sends each second's requests
 * in one burst at its start, so its latencies would be the burst's queue.)
 */
export function pacedLoad(url: string, build: () => LoadRequest, rate: number): { stop(): Promise<PacedResult> } {
  const agent = new http.Agent({ keepAlive: true });
  const latencies: number[] = [];
  let failures = 0;
  const statuses = new Map<string, number>();
  const count = (status: string) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
  const pending = new Set<Promise<void>>();
  const fire = (due: number): void => {
    const r = build();
    const done = new Promise<void>((resolve) => {
      const req = http.request(new URL(r.path, url), { method: r.method, headers: r.headers, agent }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - due);
          if (!res.statusCode || res.statusCode < 200 || res.statusCode > 299) failures++;
          count(String(res.statusCode));
          resolve();
        });
      });
      req.on('error', () => {
        failures++;
        count('error');
        resolve();
      });
      req.end(r.body);
    });
    pending.add(done);
    void done.then(() => pending.delete(done));
  };
  // Every request due so far, on a tick of at most 5 ms: timers count whole milliseconds, so an
  // interval of 1000/rate would round a rate whose interval is not a whole number (300 a second).
  const started = performance.now();
  let fired = 0;
  const timer = setInterval(() => {
    for (const due = Math.floor(((performance.now() - started) * rate) / 1000); fired < due; fired++) fire(started + ((fired + 1) * 1000) / rate);
  }, Math.min(5, 1000 / rate));
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
      agent.destroy();
      const tallied = [...statuses].sort(([a], [b]) => a.localeCompare(b)).map(([status, n]) => `${status}×${n}`).join(' ');
      return { responses: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failures, statuses: tallied };
    },
  };
}
