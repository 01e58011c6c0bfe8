/**
 * `ONLY=citus`, many businesses: what a request costs the database when the businesses are
 * spread over both workers, at a fixed rate below saturation, on the cluster and on the single
 * PostgreSQL beside it (scripts/bench/citus.ts starts both and runs this after its one-business
 * scenarios).
 *
 * 1. BUSINESSES businesses (KNOBS.businesses), each with BUSINESS_WALLETS wallets of 1000.00
 *    and a funded operational account, made through each side's API; prints how many of the
 *    cluster's land on each worker (`get_shard_id_for_distribution_column`, the shard's
 *    placement in `pg_dist_placement`).
 * 2. For transfers and for funds (the one-business scenario's requests, each on a random
 *    business with its own token), both sides in alternating turns at RATE requests a second
 *    over all connections (autocannon's `overallRate`), after a warm-up long enough for every
 *    pooled connection to run its statements more than PLAN_CACHE_CALLS times and then once on
 *    each shard of its worker. Before them, each node's CPU at rest over REST_SECONDS.
 * 3. Prints, per side, the database CPU per request (ms, every PostgreSQL process of each node,
 *    ./processes.ts postgresCpuMs) split by node, the part of it the nodes spend at rest (the
 *    background's rounds: at a low rate they weigh on each request), the requests a second one
 *    core of a worker serves at that cost, and the private memory of each node's client
 *    backends at the end.
 *
 * Returns its targets: the cluster's database CPU per request over the single PostgreSQL's at
 * most MAX_CPU_RATIO for each kind, the businesses on both workers, every request answered 2xx,
 * no two-phase commit, every business's ledger sound. With SOAK_SECONDS, then loads the cluster
 * alone with both kinds for that long and prints its backends' memory every SOAK_STEP_SECONDS.
 */
import { sql } from '../citus/cluster.js';
import { checkLedger, createDataset, inParallel, waitUntilQuiet } from './dataset.js';
import { KNOBS } from './knobs.js';
import { comparePair, measure, type LoadRequest, type LoadResult, type Target } from './load.js';
import { printTable, times, type Check } from './print.js';
import { backendMemory, cpuMs, postgresCpuMs, type BackendMemory } from './processes.js';
import { serviceRequests, type Dataset } from './requests.js';

/** The cluster's database CPU per request over the single PostgreSQL's, at most (docs/scale-out.md). */
const MAX_CPU_RATIO = 2.0;
/**
 * PostgreSQL plans a prepared statement (and a PL/pgSQL function's statements) generically
 * after five custom plans (PostgreSQL's plancache.c), and Citus then plans a generic plan's
 * statement for a local shard at its first run on that shard and keeps it: past this many
 * calls on a connection and one more on each shard, a statement is in its steady state.
 */
const PLAN_CACHE_CALLS = 10;
/** Seconds each node's CPU is read at rest before a kind's turns. */
const REST_SECONDS = 5;
/** Below this share of the asked rate, a side is saturated, and the bench says so. */
const SERVED_SHARE = 0.9;
/** Seconds between the soak's memory readings. */
const SOAK_STEP_SECONDS = 30;

/** One side as citus.ts started it: its database, its data directories (coordinator first), its service. */
export interface ScaleSide {
  name: string;
  url: string;
  dataDirs: string[];
  service: { url: string };
  pid: number;
}

/** What the scenario needs from citus.ts. */
export interface ScaleContext {
  single: ScaleSide;
  citus: ScaleSide;
  coordinatorPort: number;
  /** Requests a second of each kind with one business, the lower of the two sides': half of it is the default rate. */
  saturated: { transfer: number; fund: number };
  /** Citus's two-phase commits recorded so far. */
  twoPhase(): Promise<number>;
}

type Kind = 'transfer' | 'fund';
const nodeNames = (side: ScaleSide) => (side.dataDirs.length === 1 ? ['single'] : ['coordinator', ...side.dataDirs.slice(1).map((_, i) => `worker-${i + 1}`)]);
const ms = (v: number) => v.toFixed(2);
const mib = (m: BackendMemory) => `${m.totalMiB.toFixed(0)}/${m.maxMiB.toFixed(1)} (${m.backends})`;

/** Each node's CPU so far, in the order of `side.dataDirs`, and the service's. */
function target(side: ScaleSide, build: () => LoadRequest): Target {
  return {
    url: side.service.url,
    build,
    cpu: () => {
      const nodes = side.dataDirs.map(postgresCpuMs);
      return { server: cpuMs(side.pid), database: nodes.reduce((a, b) => a + b, 0), nodes };
    },
  };
}

/** A request of `kind` on a random business of `datasets`. */
function spread(datasets: Dataset[], kind: Kind): () => LoadRequest {
  const builders = datasets.map((d) => serviceRequests(d)[kind]);
  return () => builders[Math.floor(Math.random() * builders.length)]();
}

/** How many of `businesses` have their shards on each worker of the cluster, and in how many shards, by the worker's port. */
function perWorker(coordinatorPort: number, businesses: string[]): Map<number, { businesses: number; shards: number }> {
  const rows = sql(
    coordinatorPort,
    `SELECT n.nodeport || ' ' || count(*) || ' ' || count(DISTINCT p.shardid) FROM unnest('{${businesses.join(',')}}'::uuid[]) b(id)
       JOIN pg_dist_placement p ON p.shardid = get_shard_id_for_distribution_column('accounts', b.id)
       JOIN pg_dist_node n ON n.groupid = p.groupid GROUP BY n.nodeport ORDER BY n.nodeport`,
  );
  return new Map(
    rows
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ').map(Number))
      .map(([port, businesses, shards]) => [port, { businesses, shards }]),
  );
}

/** Each node's CPU a second (ms) with no request, over REST_SECONDS, in the order of `side.dataDirs`. */
async function atRest(side: ScaleSide): Promise<number[]> {
  const before = side.dataDirs.map(postgresCpuMs);
  await new Promise((resolve) => setTimeout(resolve, REST_SECONDS * 1000));
  return side.dataDirs.map((d, i) => (postgresCpuMs(d) - before[i]) / REST_SECONDS);
}

/** One kind's turns: both sides' results, the rate asked, and each node's backends' memory at the end. */
interface Run {
  kind: Kind;
  rate: number;
  warmup: number;
  single: LoadResult;
  citus: LoadResult;
  /** Each side's database CPU a second at rest (ms), all nodes. */
  rest: { single: number; citus: number };
  twoPhase: number;
  memory: Map<string, BackendMemory>;
}

const memoryOf = (sides: ScaleSide[]) => new Map(sides.flatMap((s) => s.dataDirs.map((d, i) => [nodeNames(s)[i], backendMemory(d)] as const)));

/** Prints the runs' tables: rates; per side and node, the CPU per request; the cores' capacity; the memory. */
function printRuns(runs: Run[], ctx: ScaleContext): void {
  const workers = nodeNames(ctx.citus).slice(1);
  printTable(
    [['many businesses, fixed rate', 28], ['rate', 6], ['single req/s', 13], ['Citus req/s', 12], ['p99 ms', 14], ['non-2xx', 9], ['warm-up s', 11]],
    runs.map((r) => [r.kind, r.rate, r.single.requestsPerSecond.toFixed(0), r.citus.requestsPerSecond.toFixed(0), `${r.single.p99.toFixed(1)}/${r.citus.p99.toFixed(1)}`, `${r.single.failures}/${r.citus.failures}`, r.warmup]),
  );
  for (const r of runs) {
    const short = (['single', 'citus'] as const).filter((side) => r[side].requestsPerSecond < SERVED_SHARE * r.rate);
    if (short.length) console.log(`${r.kind}: ${short.join(' and ')} served less than ${SERVED_SHARE * 100} % of the rate: saturated, its CPU per request is not at the rate asked`);
  }
  const perRequest = runs.map((r) => {
    const [coordinator, ...onWorkers] = r.citus.cpuPerRequest.nodes;
    const rest = { single: r.rest.single / r.single.requestsPerSecond, citus: r.rest.citus / r.citus.requestsPerSecond };
    return { r, coordinator, onWorkers, workers: onWorkers.reduce((a, b) => a + b, 0), single: r.single.cpuPerRequest.database, citus: r.citus.cpuPerRequest.database, rest };
  });
  printTable(
    [['DB CPU ms/request', 28], ['single', 8], ['Citus', 8], ['coord.', 8], ...workers.map((w): [string, number] => [w, 10]), ['Citus/single', 14], ['at rest', 12], ['less rest', 11]],
    perRequest.map((p) => [p.r.kind, ms(p.single), ms(p.citus), ms(p.coordinator), ...p.onWorkers.map(ms), times(p.citus / p.single), `${ms(p.rest.single)}/${ms(p.rest.citus)}`, times((p.citus - p.rest.citus) / (p.single - p.rest.single))]),
  );
  printTable(
    [['req/s per core at that cost', 28], ['single', 8], ['worker', 8], ['coord.', 8]],
    perRequest.map((p) => [p.r.kind, (1000 / p.single).toFixed(0), (1000 / p.workers).toFixed(0), (1000 / p.coordinator).toFixed(0)]),
  );
  const nodes = [...runs[0].memory.keys()];
  printTable([["backends' private MiB at end", 28], ...nodes.map((n): [string, number] => [n, 18])], runs.map((r) => [r.kind, ...nodes.map((n) => mib(r.memory.get(n)!))]));
  console.log(
    "(p99: single/Citus, autocannon sends each second's requests at its start; DB CPU: every PostgreSQL process of the node, background work included, per response; " +
      'at rest: the nodes\' CPU a second with no request over the rate served, single/Citus, and the ratio less it; worker: the workers\' CPU summed, each request served by one of them; ' +
      'req/s per core: 1000 ÷ that CPU; memory: sum/largest (client backends), Private_Clean + Private_Dirty)',
  );
}

/** The cluster alone under both kinds at `rate` for KNOBS.soakSeconds, its workers' backends' memory every SOAK_STEP_SECONDS. */
async function soak(ctx: ScaleContext, datasets: Dataset[], rate: number): Promise<void> {
  const [transfer, fund] = [spread(datasets, 'transfer'), spread(datasets, 'fund')];
  const load = target(ctx.citus, () => (Math.random() < 0.5 ? transfer() : fund()));
  const workers = nodeNames(ctx.citus).slice(1);
  const readings: BackendMemory[][] = [];
  console.log(`\nsoak: the cluster alone, transfers and funds on ${datasets.length} businesses at ${rate} req/s for ${KNOBS.soakSeconds} s`);
  console.log(`${'elapsed s'.padEnd(10)}${'req/s'.padStart(8)}${'non-2xx'.padStart(9)}${'DB CPU ms/req'.padStart(15)}${workers.map((w) => `${w} MiB sum/max (n)`.padStart(28)).join('')}`);
  for (let elapsed = 0; elapsed < KNOBS.soakSeconds; ) {
    const seconds = Math.min(SOAK_STEP_SECONDS, KNOBS.soakSeconds - elapsed);
    const r = await measure(load, { connections: KNOBS.connections, seconds, warmupSeconds: 0, overallRate: rate });
    elapsed += seconds;
    const memory = ctx.citus.dataDirs.slice(1).map(backendMemory);
    readings.push(memory);
    console.log(`${String(elapsed).padEnd(10)}${r.requestsPerSecond.toFixed(0).padStart(8)}${String(r.failures).padStart(9)}${ms(r.cpuPerRequest.database).padStart(15)}${memory.map((m) => mib(m).padStart(28)).join('')}`);
  }
  const [first, last] = [readings[0], readings[readings.length - 1]];
  console.log(`soak: workers' backends ${workers.map((w, i) => `${w} ${first[i].totalMiB.toFixed(0)} → ${last[i].totalMiB.toFixed(0)} MiB (largest ${first[i].maxMiB.toFixed(1)} → ${last[i].maxMiB.toFixed(1)})`).join(', ')}`);
}

/** Runs the scenario (see the module's header); returns its targets. */
export async function runManyBusinesses(ctx: ScaleContext): Promise<Check[]> {
  const sides = [ctx.single, ctx.citus];
  const t0 = performance.now();
  const [singleData, citusData] = await Promise.all(
    sides.map((side) => inParallel(Array.from({ length: KNOBS.businesses }, (_, i) => i), 4, () => createDataset(side.service.url, KNOBS.businessWallets))),
  );
  console.log(`\nmany businesses: ${KNOBS.businesses} businesses of ${KNOBS.businessWallets} wallets on each side, made in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const placed = perWorker(ctx.coordinatorPort, citusData.map((d) => d.businessId));
  console.log(`their shards on the cluster: ${[...placed].map(([port, p]) => `${p.businesses} businesses in ${p.shards} shards on the worker at port ${port}`).join(', ')}`);
  const checks: Check[] = [{ what: 'many businesses: businesses on each of the two workers', value: [...placed.values()].map((p) => p.businesses).join(' + '), target: '≥ 1 each', met: placed.size === 2 }];
  const shardsPerWorker = Math.max(...[...placed.values()].map((p) => p.shards));

  const runs: Run[] = [];
  for (const kind of ['transfer', 'fund'] as const) {
    const rate = KNOBS.rate ?? Math.max(1, Math.round(ctx.saturated[kind] / 2));
    // Each worker serves its businesses over at most a pool's worth of backends; each backend runs its statements
    // twice PLAN_CACHE_CALLS times (the pool spreads them unevenly), then once more on each shard of its worker.
    const warmup = Math.max(KNOBS.warmup, Math.ceil((KNOBS.poolSize * placed.size * (2 * PLAN_CACHE_CALLS + shardsPerWorker)) / rate));
    await Promise.all(sides.map((s) => waitUntilQuiet(s.url)));
    const [singleRest, citusRest] = await Promise.all(sides.map(atRest));
    const twoPhase = await ctx.twoPhase();
    const [single, citus] = await comparePair(target(ctx.single, spread(singleData, kind)), target(ctx.citus, spread(citusData, kind)), {
      connections: KNOBS.connections,
      seconds: KNOBS.seconds,
      warmupSeconds: warmup,
      overallRate: rate,
    });
    const rest = { single: singleRest.reduce((a, b) => a + b, 0), citus: citusRest.reduce((a, b) => a + b, 0) };
    runs.push({ kind, rate, warmup, single, citus, rest, twoPhase: (await ctx.twoPhase()) - twoPhase, memory: memoryOf(sides) });
  }
  printRuns(runs, ctx);
  for (const r of runs) {
    const ratio = r.citus.cpuPerRequest.database / r.single.cpuPerRequest.database;
    checks.push({ what: `many businesses, ${r.kind} at ${r.rate}/s: DB CPU per request, Citus / single`, value: times(ratio), target: `≤ ${times(MAX_CPU_RATIO)}`, met: ratio <= MAX_CPU_RATIO });
    checks.push({ what: `many businesses, ${r.kind}: responses other than 2xx (single/Citus), two-phase commits`, value: `${r.single.failures}/${r.citus.failures}, ${r.twoPhase}`, target: '0/0, 0', met: r.single.failures + r.citus.failures + r.twoPhase === 0 });
  }
  if (KNOBS.soakSeconds > 0) await soak(ctx, citusData, Math.round((runs[0].rate + runs[1].rate) / 2));

  for (const [side, datasets] of [[ctx.single, singleData], [ctx.citus, citusData]] as const) {
    // The check's reads may span shards: the suite's setting is off for its connection.
    const url = `${side.url}?options=${encodeURIComponent('-c citus.multi_task_query_log_level=off')}`;
    const ledgers = await inParallel(datasets, 4, (d) => checkLedger(url, d.businessId));
    const problems = ledgers.flatMap((l, i) => l.problems.map((p) => `${datasets[i].businessId}: ${p}`));
    const transactions = ledgers.reduce((sum, l) => sum + l.transactions, 0);
    checks.push({ what: `many businesses: ledgers on ${side.name} (${transactions} transactions)`, value: problems.length ? `${problems.length} problems` : 'sound', target: 'sound', met: problems.length === 0 });
    if (problems.length) console.log(`ledger problems on ${side.name}: ${problems.slice(0, 5).join('; ')}`);
  }
  return checks;
}
