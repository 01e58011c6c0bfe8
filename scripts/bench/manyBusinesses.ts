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
 *    business with its own token), both sides saturated first (./load.ts comparePair, CONNECTIONS,
 *    WARMUP and SECONDS: their capacity for this load, and the default rate, half the lower),
 *    then both in alternating turns (A B B A B A A B, as comparePair) at RATE requests a second, paced (./load.ts pacedLoad: one request
 *    every 1/RATE s whatever the answers; autocannon's `overallRate` would send each
 *    connection's share of a second at the second's start, bursts of saturation that raise the
 *    CPU per request), after a warm-up long enough for every pooled connection to run its
 *    statements more than PLAN_CACHE_CALLS times and then once on each shard of its worker.
 *    Before them, each node's CPU at rest over REST_SECONDS.
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
import { comparePair, pacedLoad, type LoadRequest, type Target } from './load.js';
import { printTable, times, type Check } from './print.js';
import { backendMemory, postgresCpuMs, type BackendMemory } from './processes.js';
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
}

/** What the scenario needs from citus.ts. */
export interface ScaleContext {
  single: ScaleSide;
  citus: ScaleSide;
  coordinatorPort: number;
  /** Citus's two-phase commits recorded so far. */
  twoPhase(): Promise<number>;
}

type Kind = 'transfer' | 'fund';
const nodeNames = (side: ScaleSide) => (side.dataDirs.length === 1 ? ['single'] : ['coordinator', ...side.dataDirs.slice(1).map((_, i) => `worker-${i + 1}`)]);
const ms = (v: number) => v.toFixed(2);
const mib = (m: BackendMemory) => `${m.totalMiB.toFixed(0)}/${m.maxMiB.toFixed(1)} (${m.backends})`;

/** What a side gave over its measured turns: rate, the highest of its turns' p99, failures, database CPU per response (all nodes, and each). */
interface Paced {
  requestsPerSecond: number;
  p99: number;
  failures: number;
  database: number;
  nodes: number[];
  /** Each measured turn's requests a second, p99 (ms) and database CPU per response (ms), in the order run. */
  turns: { rate: number; p99: number; database: number }[];
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** `side` under `build` at `rate` for `seconds`: its responses, p99, failures and each node's CPU over the turn (ms). */
async function turn(side: ScaleSide, build: () => LoadRequest, rate: number, seconds: number) {
  const before = side.dataDirs.map(postgresCpuMs);
  const t0 = performance.now();
  const load = pacedLoad(side.service.url, build, rate);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const result = await load.stop();
  return { ...result, seconds: (performance.now() - t0) / 1000, nodes: side.dataDirs.map((d, i) => postgresCpuMs(d) - before[i]) };
}

/** Each side with its requests: `warmup` seconds each, then `seconds` each in four turns, A B B A B A A B. */
async function pacedPair(sides: [ScaleSide, () => LoadRequest][], rate: number, seconds: number, warmup: number): Promise<Paced[]> {
  for (const [side, build] of sides) await turn(side, build, rate, warmup);
  const turns = sides.map(() => [] as Awaited<ReturnType<typeof turn>>[]);
  for (const i of [0, 1, 1, 0, 1, 0, 0, 1]) turns[i].push(await turn(sides[i][0], sides[i][1], rate, seconds / 4));
  return turns.map((t) => {
    const responses = sum(t.map((x) => x.responses));
    const nodes = t[0].nodes.map((_, n) => sum(t.map((x) => x.nodes[n])) / responses);
    const perTurn = t.map((x) => ({ rate: x.responses / x.seconds, p99: x.p99, database: sum(x.nodes) / x.responses }));
    return { requestsPerSecond: responses / sum(t.map((x) => x.seconds)), p99: Math.max(...t.map((x) => x.p99)), failures: sum(t.map((x) => x.failures)), database: sum(nodes), nodes, turns: perTurn };
  });
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
  /** Each side's requests a second saturated (CONNECTIONS closed loops), and their failures, both sides'. */
  saturated: { single: number; citus: number; failures: number };
  warmup: number;
  single: Paced;
  citus: Paced;
  /** Each side's database CPU a second at rest (ms), all nodes. */
  rest: { single: number; citus: number };
  twoPhase: number;
  memory: Map<string, BackendMemory>;
}

const memoryOf = (sides: ScaleSide[]) => new Map(sides.flatMap((s) => s.dataDirs.map((d, i) => [nodeNames(s)[i], backendMemory(d)] as const)));

/** The sides of run `r` that served less than SERVED_SHARE of the rate asked: saturated, their CPU per request not at that rate. */
function saturatedSides(r: Run): ('single' | 'citus')[] {
  return (['single', 'citus'] as const).filter((side) => r[side].requestsPerSecond < SERVED_SHARE * r.rate);
}

/** Prints the runs' tables: rates; per side and node, the CPU per request; the cores' capacity; the memory. */
function printRuns(runs: Run[], ctx: ScaleContext): void {
  const workers = nodeNames(ctx.citus).slice(1);
  printTable(
    [['many businesses, fixed rate', 28], ['saturated req/s', 17], ['rate', 6], ['single req/s', 13], ['Citus req/s', 12], ['p99 ms', 14], ['non-2xx', 9], ['warm-up s', 11]],
    runs.map((r) => [r.kind, `${r.saturated.single.toFixed(0)}/${r.saturated.citus.toFixed(0)}`, r.rate, r.single.requestsPerSecond.toFixed(0), r.citus.requestsPerSecond.toFixed(0), `${r.single.p99.toFixed(1)}/${r.citus.p99.toFixed(1)}`, `${r.single.failures}/${r.citus.failures}`, r.warmup]),
  );
  for (const r of runs) {
    const short = saturatedSides(r);
    if (short.length) {
      console.log(`${r.kind}: ${short.join(' and ')} served less than ${SERVED_SHARE * 100} % of the rate: saturated, its CPU per request is not at the rate asked`);
      for (const side of short) console.log(`  ${side}'s turns (req/s, p99 ms, DB CPU ms/request): ${r[side].turns.map((x) => `${x.rate.toFixed(0)}, ${x.p99.toFixed(0)}, ${ms(x.database)}`).join('; ')}`);
    }
  }
  const perRequest = runs.map((r) => {
    const [coordinator, ...onWorkers] = r.citus.nodes;
    const rest = { single: r.rest.single / r.single.requestsPerSecond, citus: r.rest.citus / r.citus.requestsPerSecond };
    return { r, coordinator, onWorkers, workers: sum(onWorkers), single: r.single.database, citus: r.citus.database, rest };
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
    `(saturated: single/Citus, ${KNOBS.connections} connections as fast as answered; p99: single/Citus, the highest of the four turns', from the moment each request was due; DB CPU: every PostgreSQL process of the node, background work included, per response; ` +
      'at rest: the nodes\' CPU a second with no request over the rate served, single/Citus, and the ratio less it; worker: the workers\' CPU summed, each request served by one of them; ' +
      'req/s per core: 1000 ÷ that CPU; memory: sum/largest (client backends), Private_Clean + Private_Dirty)',
  );
}

/** The cluster alone under both kinds at `rate` for KNOBS.soakSeconds, its workers' backends' memory every SOAK_STEP_SECONDS. */
async function soak(ctx: ScaleContext, datasets: Dataset[], rate: number): Promise<void> {
  const [transfer, fund] = [spread(datasets, 'transfer'), spread(datasets, 'fund')];
  const build = () => (Math.random() < 0.5 ? transfer() : fund());
  const workers = nodeNames(ctx.citus).slice(1);
  const readings: BackendMemory[][] = [];
  console.log(`\nsoak: the cluster alone, transfers and funds on ${datasets.length} businesses at ${rate} req/s for ${KNOBS.soakSeconds} s`);
  console.log(`${'elapsed s'.padEnd(10)}${'req/s'.padStart(8)}${'non-2xx'.padStart(9)}${'DB CPU ms/req'.padStart(15)}${workers.map((w) => `${w} MiB sum/max (n)`.padStart(28)).join('')}`);
  for (let elapsed = 0; elapsed < KNOBS.soakSeconds; ) {
    const seconds = Math.min(SOAK_STEP_SECONDS, KNOBS.soakSeconds - elapsed);
    const t = await turn(ctx.citus, build, rate, seconds);
    elapsed += seconds;
    const memory = ctx.citus.dataDirs.slice(1).map(backendMemory);
    readings.push(memory);
    console.log(`${String(elapsed).padEnd(10)}${(t.responses / t.seconds).toFixed(0).padStart(8)}${String(t.failures).padStart(9)}${ms(sum(t.nodes) / t.responses).padStart(15)}${memory.map((m) => mib(m).padStart(28)).join('')}${t.failures ? `  ${t.statuses}` : ''}`);
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
    const builds = [spread(singleData, kind), spread(citusData, kind)];
    await Promise.all(sides.map((s) => waitUntilQuiet(s.url)));
    const twoPhase = await ctx.twoPhase();
    const closedLoop = (i: number): Target => ({ url: sides[i].service.url, build: builds[i], cpu: () => ({ server: 0, database: 0 }) });
    const [singleSaturated, citusSaturated] = await comparePair(closedLoop(0), closedLoop(1), { connections: KNOBS.connections, seconds: KNOBS.seconds, warmupSeconds: KNOBS.warmup });
    const saturated = { single: singleSaturated.requestsPerSecond, citus: citusSaturated.requestsPerSecond, failures: singleSaturated.failures + citusSaturated.failures };
    const rate = KNOBS.rate ?? Math.max(1, Math.round(Math.min(saturated.single, saturated.citus) / 2));
    // Each worker serves its businesses over at most a pool's worth of backends; each backend runs its statements
    // twice PLAN_CACHE_CALLS times (the pool spreads them unevenly), then once more on each shard of its worker.
    const warmup = Math.max(KNOBS.warmup, Math.ceil((KNOBS.poolSize * placed.size * (2 * PLAN_CACHE_CALLS + shardsPerWorker)) / rate));
    await Promise.all(sides.map((s) => waitUntilQuiet(s.url)));
    const [singleRest, citusRest] = await Promise.all(sides.map(atRest));
    const [single, citus] = await pacedPair([[ctx.single, builds[0]], [ctx.citus, builds[1]]], rate, KNOBS.seconds, warmup);
    const rest = { single: sum(singleRest), citus: sum(citusRest) };
    runs.push({ kind, rate, saturated, warmup, single, citus, rest, twoPhase: (await ctx.twoPhase()) - twoPhase, memory: memoryOf(sides) });
  }
  printRuns(runs, ctx);
  for (const r of runs) {
    const ratio = r.citus.database / r.single.database;
    // A saturated side's CPU per request is not at the rate asked: the ratio then proves nothing either way.
    const served = saturatedSides(r).length === 0;
    checks.push({ what: `many businesses, ${r.kind} at ${r.rate}/s: DB CPU per request, Citus / single`, value: `${times(ratio)}${served ? '' : ', saturated'}`, target: `≤ ${times(MAX_CPU_RATIO)}`, met: served && ratio <= MAX_CPU_RATIO });
    const failures = `${r.saturated.failures}, ${r.single.failures}/${r.citus.failures}, ${r.twoPhase}`;
    checks.push({ what: `many businesses, ${r.kind}: non-2xx saturated, paced s/C; two-phase`, value: failures, target: '0, 0/0, 0', met: r.saturated.failures + r.single.failures + r.citus.failures + r.twoPhase === 0 });
  }
  if (KNOBS.soakSeconds > 0) await soak(ctx, citusData, Math.round((runs[0].rate + runs[1].rate) / 2));

  for (const [side, datasets] of [[ctx.single, singleData], [ctx.citus, citusData]] as const) {
    // The check's reads may span shards: the suite's setting is off for its connection.
    const url = `${side.url}?options=${encodeURIComponent('-c citus.multi_task_query_log_level=off')}`;
    const ledgers = await inParallel(datasets, 4, (d) => checkLedger(url, d.businessId));
    const problems = ledgers.flatMap((l, i) => l.problems.map((p) => `${datasets[i].businessId}: ${p}`));
    const transactions = sum(ledgers.map((l) => l.transactions));
    checks.push({ what: `many businesses: ledgers on ${side.name} (${transactions} transactions)`, value: problems.length ? `${problems.length} problems` : 'sound', target: 'sound', met: problems.length === 0 });
    if (problems.length) console.log(`ledger problems on ${side.name}: ${problems.slice(0, 5).join('; ')}`);
  }
  return checks;
}
