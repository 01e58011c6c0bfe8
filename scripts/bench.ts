/**
 * `npm run bench`: the service beside the bare reference (scripts/reference-server.ts)
 * in one run on one PostgreSQL, with autocannon on loopback.
 *
 * 1. Starts the service with `npm start` (its log lines to DATA_DIR/service.log, as a
 *    log collector would take them) on a fresh DATA_DIR (first start: initdb,
 *    migrations, sandbox seed), stops it, then starts it STARTS more times on that
 *    existing data directory, timing spawn → first 200 from /health; the last one
 *    stays up as the service under test (its own process: its peak RSS is its own).
 * 2. Seeds through the public API: a business, WALLETS wallets, each funded.
 * 3. Starts the reference on the service's embedded PostgreSQL, same pool size.
 * 4. For each scenario, after VACUUM ANALYZE and CHECKPOINT (so that neither
 *    lands in one server's turn), both servers: WARMUP seconds thrown away, then SECONDS
 *    measured each with CONNECTIONS connections, in eight alternating turns
 *    (scripts/bench/load.ts), so that the ratio is fair on a machine whose load
 *    changes. p50 and p99 leave out the first response on each connection of a turn
 *    (a set-up burst of every turn, see load.ts); `p99 all` includes them.
 *    Around each turn it reads the CPU time of the server's process, of the database
 *    cluster and of itself, and prints CPU milliseconds per request for each.
 * 5. Bulk payouts (scripts/bench/bulk.ts): one of 1,000 items, the same three times with
 *    a dead webhook endpoint (unresolvable host, refused connection, no answer) beside the
 *    receiver and on another business, then ten at once, timed
 *    to created, every payout COMPLETED and every event delivered. Beside the ten runs
 *    other traffic, getWallet and transfers of the seed business at OTHER_RATE requests a
 *    second (an open loop: one request every 1/OTHER_RATE s); its p99 is compared with
 *    the same traffic's over OTHER_QUIET_SECONDS on the quiet service just before (after
 *    OTHER_WARMUP_SECONDS of it not measured). Their targets in seconds are scaled to the
 *    machine by the reference's transfers a second in the same run
 *    (TARGETS_SET_AT_REFERENCE_TRANSFERS).
 * 6. Growth (scripts/bench/growth.ts), last since it grows the ledger: once the seed
 *    business's ledger has GROWTH_TRANSFERS transfers (2 entries each) more of history, its
 *    statement, list, getWallet and transfer requests in turns with the same requests of a
 *    business of the same shape with a fresh ledger; grown / fresh.
 *    Throughout, the service's VmRSS is sampled every 250 ms; the bench prints, for each
 *    phase (start-up, seed, each load scenario, each bulk scenario, each part of growth),
 *    its highest VmRSS and VmHWM at its end, to show where the peak checked below falls.
 * 7. Checks the ledger afterwards (balanced transactions, balances = entries,
 *    money conserved, no wallet below zero) and prints the table of targets.
 *
 * Environment: SECONDS (10), WARMUP (3), CONNECTIONS (50), WALLETS (2000), STARTS (3),
 * GROWTH_TRANSFERS (1000000), GROWTH_SECONDS (8), GROWTH_CONNECTIONS (10),
 * ONLY (comma-separated scenario names, e.g. `getWallet`, `growth`: run only those; `isolation`: the
 * dead-endpoint cases of step 5; `citus`: the service on a Citus cluster beside one PostgreSQL 15,
 * scripts/bench/citus.ts, instead of all of the above), SERVICE_NODE_OPTIONS (NODE_OPTIONS for the service's `npm start`
 * only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`: CPU profiles written when it stops, the largest
 * the service's own).
 * Exits 1 when a target is missed or the ledger check fails.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { freePort } from '../src/db/embedded.js';
import { comparePair, measure, pacedLoad, type LoadRequest, type LoadResult, type PacedResult } from './bench/load.js';
import { cpuMs, MemoryPhases, peakRssMiB, postgresCpuMs, postgresPort, servicePid, spawnServer, stop, waitHealthy, type Spawned } from './bench/processes.js';
import { runBulkScenario, type Alongside, type BulkResult, type DeadKind } from './bench/bulk.js';
import { checkLedger, seedBench, settle } from './bench/seed.js';
import { referenceRequests, serviceRequests } from './bench/requests.js';
import { growthRatios, runGrowthScenario, type GrowthResult } from './bench/growth.js';

const SECONDS = Number(process.env.SECONDS ?? 10);
const WARMUP = Number(process.env.WARMUP ?? 3);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
const WALLETS = Number(process.env.WALLETS ?? 2000);
const STARTS = Number(process.env.STARTS ?? 3);
const POOL_SIZE = loadConfig().dbPoolSize;
const ONLY = process.env.ONLY?.split(',');
if (ONLY?.includes('citus')) {
  // The service on a Citus cluster beside one PostgreSQL 15 (scripts/bench/citus.ts): a run of its own.
  const { runCitusBench } = await import('./bench/citus.js');
  process.exit(await runCitusBench());
}
const GROWTH_TRANSFERS = Number(process.env.GROWTH_TRANSFERS ?? 1_000_000);
const GROWTH_SECONDS = Number(process.env.GROWTH_SECONDS ?? 8);
const GROWTH_CONNECTIONS = Number(process.env.GROWTH_CONNECTIONS ?? 10);
/** Growth: grown / fresh, each request kind: within 10 %, p99 within 20 %. */
const GROWTH_TARGETS = { requestsPerSecond: 0.9, p99: 1.2 };

// The service's own targets (README, "Benchmark"): memory and start-up; the scenarios carry their own.
const TARGETS = { rssMiB: 250, startSeconds: 3 };
/**
 * The reference's transfers a second on the machine where the bulk scenarios' targets in
 * seconds were set (2,300–2,500 there). Each such target is scaled by this over the
 * reference's transfers a second in the same run, so that it is relative to the bare stack
 * on the machine at hand, as every other target is (openapi/DESIGN.md, "Benchmark targets
 * relative to the bare stack"): on a machine half as fast a target of 30 s is 60 s.
 */
const TARGETS_SET_AT_REFERENCE_TRANSFERS = 2_400;
/**
 * Other traffic beside the ten bulk payouts: requests a second, and seconds measured on the
 * quiet service first, after OTHER_WARMUP_SECONDS not measured (the database was just
 * checkpointed: the first write to each page after a checkpoint logs the whole page, which
 * would make the quiet service look slower than it is). 30 s: about as many responses as
 * beside the ten (35–40 s), so that both p99s rest on the slowest 30-odd, not the quiet one
 * on its 10th slowest of 1,000 (which moved 4–7 ms between runs of the same code).
 */
const OTHER_RATE = 100;
const OTHER_WARMUP_SECONDS = 3;
const OTHER_QUIET_SECONDS = 30;

const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-bench-'));
chmodSync(dataDir, 0o755); // PostgreSQL runs as the `postgres` user when we are root
const servicePort = await freePort();
const serviceEnv = { PAYOUT_PROCESSING_MS: '0', PORT: String(servicePort), DATA_DIR: dataDir, DB_POOL_SIZE: String(POOL_SIZE), RATE_LIMIT_PER_MINUTE: '100000000', RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '100000000', SANDBOX: 'true', ...(process.env.SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: process.env.SERVICE_NODE_OPTIONS } : {}) };
const startService = () => spawnServer('npm', ['start', '--silent'], serviceEnv, servicePort, path.join(dataDir, 'service.log'));

let service: Spawned | undefined;
let reference: Spawned | undefined;
let memory: MemoryPhases | undefined;
let failed = false;

/** The service's memory by phase (MemoryPhases): VmHWM only rises, so the phase where it last rose holds the peak. */
function printMemory(phases: MemoryPhases): void {
  const pad = (v: string | number, n: number) => String(v).padStart(n);
  console.log(`\n${'service memory by phase (MiB)'.padEnd(60)}${pad('max RSS', 9)}${pad('at end', 8)}${pad('VmHWM', 7)}  ended (UTC)`);
  for (const m of phases.phases) console.log(`${m.name.padEnd(60)}${pad(m.maxRss.toFixed(0), 9)}${pad(m.endRss.toFixed(0), 8)}${pad(m.hwm.toFixed(0), 7)}  ${m.endedAt.toISOString().slice(11, 19)}`);
}
try {
  console.log(`wallet-service benchmark: ${CONNECTIONS} connections, ${WALLETS} wallets, ${WARMUP} s warm-up + ${SECONDS} s per run, pool ${POOL_SIZE}`);
  service = startService();
  await waitHealthy(service, 180_000);
  await stop(service.child, servicePid(service.child.pid!));
  const startups: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const t0 = performance.now();
    service = startService();
    await waitHealthy(service);
    startups.push((performance.now() - t0) / 1000);
    if (i < STARTS - 1) await stop(service.child, servicePid(service.child.pid!));
  }
  const pid = servicePid(service.child.pid!);
  memory = new MemoryPhases(pid);
  memory.mark('start-up');

  const seed = await seedBench(service.url, WALLETS);
  memory.mark(`seed: ${WALLETS} wallets`);
  const pgDataDir = path.join(dataDir, 'pg');
  const databaseUrl = `postgres://postgres:postgres@127.0.0.1:${postgresPort(pgDataDir)}/wallet`;
  const referencePort = await freePort();
  reference = spawnServer(process.execPath, ['--import', 'tsx', 'scripts/reference-server.ts'], { DATABASE_URL: databaseUrl, PORT: String(referencePort), DB_POOL_SIZE: String(POOL_SIZE) }, referencePort, path.join(dataDir, 'reference.log'));
  await waitHealthy(reference);
  const referencePid = reference.child.pid!;
  /** The reference under load with request `build`: its own CPU and the database's (every reference measurement). */
  const referenceTarget = (build: () => LoadRequest) => ({ url: reference!.url, build, cpu: () => ({ server: cpuMs(referencePid), database: postgresCpuMs(pgDataDir) }) });

  const [seedRequests, ref] = [serviceRequests(seed), referenceRequests(seed)];
  const all: { name: string; target: number; p99: number; reference: () => LoadRequest; service: () => LoadRequest }[] = [
    { name: 'transfer (random wallets)', target: 1.0, p99: 1.0, reference: ref.transfer, service: seedRequests.transfer },
    { name: 'fund (hot operational account)', target: 3.0, p99: 1.0, reference: ref.fund, service: seedRequests.fund },
    { name: 'getWallet', target: 0.85, p99: 1.2, reference: ref.getWallet, service: seedRequests.getWallet },
  ];

  const scenarios = all.filter((s) => !ONLY || ONLY.some((name) => s.name.startsWith(name)));
  const load = { connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP };
  const rows: { name: string; target: number; p99: number; ref: LoadResult; svc: LoadResult }[] = [];
  for (const s of scenarios) {
    await settle(databaseUrl); // no checkpoint or autovacuum left to land in one server's turn
    const [ref, svc] = await comparePair(
      referenceTarget(s.reference),
      { url: service.url, build: s.service, cpu: () => ({ server: cpuMs(pid), database: postgresCpuMs(pgDataDir) }) },
      load,
    );
    rows.push({ name: s.name, target: s.target, p99: s.p99, ref, svc });
    memory.mark(s.name);
  }
  // Bulk payouts: one of 1,000 items, then ten of 1,000 at once. Beside the ten,
  // other traffic (the seed business's getWallet and transfers, OTHER_RATE a second in all)
  // runs for their whole course; its latency is compared with the same traffic's on the
  // quiet service just before.
  const bulkRuns: { name: string; result: BulkResult; limits: { created: number; completed: number; delivered: number } }[] = [];
  let other: { quiet: PacedResult; during: PacedResult } | undefined;
  const scenario = (name: string) => all.find((s) => s.name.startsWith(name))!;
  const [transfer, getWallet] = [scenario('transfer'), scenario('getWallet')];
  const otherRequest = () => (Math.random() < 0.5 ? transfer.service() : getWallet.service());
  // Isolation: the same bulk payout with a dead webhook endpoint of each kind beside the
  // healthy receiver, on its business and on another one (scripts/bench/bulk.ts): the
  // receiver's 3,000 events within the same 10 s.
  const isolated = (dead: DeadKind) => [`isolation: 1 × 1,000 items, dead endpoint: ${dead}`, 1, { created: Infinity, completed: Infinity, delivered: 10 }, dead] as const;
  // The machine's speed for the targets in seconds: the reference's transfers a second in
  // this run (measured alone when ONLY left the transfer scenario out).
  let machine: { referenceTransfers: number; factor: number } | undefined;
  const machineSpeed = async () => {
    if (machine) return machine;
    const measured = rows.find((r) => r.name === transfer.name)?.ref ?? (await measure(referenceTarget(transfer.reference), load));
    return (machine = { referenceTransfers: measured.requestsPerSecond, factor: TARGETS_SET_AT_REFERENCE_TRANSFERS / measured.requestsPerSecond });
  };
  for (const [name, bulks, limits, dead] of [
    ['bulk payout, 1 × 1,000 items', 1, { created: 2, completed: 5, delivered: 10 }, undefined],
    isolated('unresolvable host'),
    isolated('refused connection'),
    isolated('no answer'),
    ['bulk payouts, 10 × 1,000 items at once', 10, { created: Infinity, completed: 30, delivered: 60 }, undefined],
  ] as const) {
    if (ONLY && !ONLY.some((only) => name.startsWith(only))) continue;
    await machineSpeed();
    await settle(databaseUrl);
    let alongside: Alongside | undefined;
    if (bulks === 10) {
      const url = service.url;
      const warmup = pacedLoad(url, otherRequest, OTHER_RATE);
      await new Promise((r) => setTimeout(r, OTHER_WARMUP_SECONDS * 1000));
      await warmup.stop();
      const quietLoad = pacedLoad(url, otherRequest, OTHER_RATE);
      await new Promise((r) => setTimeout(r, OTHER_QUIET_SECONDS * 1000));
      const quiet = await quietLoad.stop();
      let during: ReturnType<typeof pacedLoad> | undefined;
      alongside = {
        start() {
          during = pacedLoad(url, otherRequest, OTHER_RATE);
        },
        async stop() {
          if (during) other = { quiet, during: await during.stop() };
        },
      };
    }
    // Gives up on a stage well after its target: at 1.2 × the longest target in seconds as scaled, at least 120 s.
    const giveUp = Math.max(120, ...Object.values(limits).filter(Number.isFinite).map((l) => 1.2 * l * machine!.factor));
    bulkRuns.push({ name, result: await runBulkScenario(service.url, bulks, 1_000, giveUp, alongside, dead), limits });
    memory.mark(name);
  }
  // Growth, last: it leaves the ledger millions of entries larger.
  let growth: GrowthResult | undefined;
  if (!ONLY || ONLY.some((only) => 'growth'.startsWith(only))) {
    // The fresh ledger: a business of the same shape as the seed one, its wallets funded.
    const control = await seedBench(service.url, WALLETS);
    memory.mark(`growth: a business with a fresh ledger, ${WALLETS} wallets`);
    growth = await runGrowthScenario({
      serviceUrl: service.url,
      databaseUrl,
      grown: { token: seed.token, businessId: seed.businessId, ...seedRequests },
      fresh: { token: control.token, businessId: control.businessId, ...serviceRequests(control) },
      transfers: GROWTH_TRANSFERS,
      window: 1_000,
      load: { connections: GROWTH_CONNECTIONS, seconds: GROWTH_SECONDS, warmupSeconds: 1 },
      cpu: () => ({ server: cpuMs(pid), database: postgresCpuMs(pgDataDir) }),
      settle: () => settle(databaseUrl),
      mark: (phase) => memory?.mark(`growth: ${phase}`),
    });
  }
  memory.stop();
  const rss = peakRssMiB(pid);
  const ledger = await checkLedger(databaseUrl, seed.businessId);

  const pad = (v: string | number, n: number) => String(v).padStart(n);
  console.log(`\n${'scenario'.padEnd(32)}${'server'.padEnd(11)}${pad('req/s', 8)}${pad('p50 ms', 8)}${pad('p99 ms', 8)}${pad('p99 all', 9)}  non-2xx/errors  statuses`);
  for (const r of rows) {
    for (const [who, x] of [['reference', r.ref], ['service', r.svc]] as const) {
      console.log(`${(who === 'reference' ? r.name : '').padEnd(32)}${who.padEnd(11)}${pad(x.requestsPerSecond.toFixed(0), 8)}${pad(x.p50.toFixed(1), 8)}${pad(x.p99.toFixed(1), 8)}${pad(x.p99All.toFixed(1), 9)}  ${pad(x.failures, 14)}  ${x.statuses}`);
    }
  }
  const setup = rows.reduce((n, r) => n + r.ref.setupResponses + r.svc.setupResponses, 0);
  console.log(`p50, p99: all responses but the first on each connection of a turn (${setup} left out: a set-up burst per turn); p99 all: every response`);
  // Where each request's CPU went (the server's node process, the database cluster,
  // the load generator); all share the machine's cores, so their sum bounds req/s.
  const ms = (v: number) => pad(v.toFixed(2), 9);
  console.log(`\n${'CPU ms per request'.padEnd(32)}${'server'.padEnd(11)}${pad('node', 9)}${pad('database', 9)}${pad('load', 9)}${pad('total', 9)}`);
  for (const r of rows) {
    for (const [who, x] of [['reference', r.ref], ['service', r.svc]] as const) {
      const c = x.cpuPerRequest;
      console.log(`${(who === 'reference' ? r.name : '').padEnd(32)}${who.padEnd(11)}${ms(c.server)}${ms(c.database)}${ms(c.load)}${ms(c.server + c.database + c.load)}`);
    }
  }

  const checks: { what: string; value: string; target: string; met: boolean }[] = [];
  for (const r of rows) {
    const ratio = r.svc.requestsPerSecond / r.ref.requestsPerSecond;
    checks.push({ what: `${r.name}: req/s service/reference`, value: `${ratio.toFixed(2)} ×`, target: `≥ ${r.target.toFixed(2)} ×`, met: ratio >= r.target && r.svc.failures === 0 });
    const p99 = r.svc.p99 / r.ref.p99;
    checks.push({ what: `${r.name}: p99 service/reference`, value: `${p99.toFixed(2)} ×`, target: `≤ ${r.p99.toFixed(2)} ×`, met: p99 <= r.p99 });
  }
  if (bulkRuns.length && machine) {
    console.log(`\n${'bulk payouts (sandbox rail, PAYOUT_PROCESSING_MS=0)'.padEnd(56)}${pad('payouts', 9)}${pad('created', 10)}${pad('completed', 11)}${pad('events', 9)}`);
    console.log(
      `targets in seconds × ${machine.factor.toFixed(2)}: the reference's transfers at ${machine.referenceTransfers.toFixed(0)} req/s in this run, ${TARGETS_SET_AT_REFERENCE_TRANSFERS.toLocaleString('en')} where they were set`,
    );
  }
  for (const b of bulkRuns) {
    const s = (v: number) => (Number.isFinite(v) ? `${v.toFixed(1)} s` : 'timed out');
    console.log(`${b.name.padEnd(56)}${pad(b.result.payouts, 9)}${pad(s(b.result.created), 10)}${pad(s(b.result.completed), 11)}${pad(s(b.result.delivered), 9)}`);
    for (const stage of ['created', 'completed', 'delivered'] as const) {
      if (!Number.isFinite(b.limits[stage])) continue;
      const what = { created: 'created', completed: 'all COMPLETED', delivered: `all ${3 * b.result.payouts} events delivered` }[stage];
      const limit = b.limits[stage] * machine!.factor;
      checks.push({ what: `${b.name}: ${what} (${b.limits[stage]} s × ${machine!.factor.toFixed(2)})`, value: s(b.result[stage]), target: `≤ ${limit.toFixed(1)} s`, met: b.result[stage] <= limit });
    }
  }
  if (other) {
    console.log(`\n${`other traffic: getWallet and transfers, ${OTHER_RATE} req/s`.padEnd(74)}responses  p50 ms  p99 ms  non-2xx/errors  statuses`);
    for (const [when, r] of [[`quiet service (${OTHER_QUIET_SECONDS} s)`, other.quiet], ['during the 10 × 1,000 bulk payouts', other.during]] as const) {
      console.log(`${when.padEnd(74)}${pad(r.responses, 9)}${pad(r.p50.toFixed(1), 8)}${pad(r.p99.toFixed(1), 8)}${pad(r.failures, 16)}  ${r.statuses}`);
    }
    const ratio = other.during.p99 / other.quiet.p99;
    checks.push({ what: 'other traffic during the 10 × 1,000 bulk payouts: p99 during/quiet', value: `${ratio.toFixed(2)} ×`, target: '≤ 2.00 ×', met: ratio <= 2 && other.quiet.failures + other.during.failures === 0 });
  }
  printMemory(memory);
  if (growth) {
    const g = growth;
    console.log(
      `\ngrowth: a fresh ledger of ${g.entriesFresh.toLocaleString('en')} entries beside one grown to ${g.entriesGrown.toLocaleString('en')} (busy wallet ${g.busyEntriesGrown.toLocaleString('en')}), history written in ${g.buildSeconds.toFixed(0)} s; in turns, ${GROWTH_CONNECTIONS} connections, ${GROWTH_SECONDS} s each`,
    );
    // CPU ms per request in the service's node process and in PostgreSQL, fresh → grown:
    // tells a slower grown ledger's time spent in the service from time spent in the database.
    console.log(
      `${'request'.padEnd(44)}${pad('fresh req/s', 12)}${pad('grown', 8)}${pad('fresh p99', 11)}${pad('grown', 8)}${pad('req/s', 7)}${pad('p99', 7)}  non-2xx/errors  CPU ms/req node, database`,
    );
    const cpu = (fresh: number, grown: number) => `${fresh.toFixed(2)} → ${grown.toFixed(2)}`;
    for (const r of g.rows) {
      const { requestsPerSecond: rps, p99 } = growthRatios(r);
      console.log(
        `${r.name.padEnd(44)}${pad(r.fresh.requestsPerSecond.toFixed(0), 12)}${pad(r.grown.requestsPerSecond.toFixed(0), 8)}${pad(r.fresh.p99.toFixed(1), 11)}${pad(r.grown.p99.toFixed(1), 8)}${pad(rps.toFixed(2), 7)}${pad(p99.toFixed(2), 7)}  ${pad(r.fresh.failures + r.grown.failures, 14)}  ${cpu(r.fresh.cpuPerRequest.server, r.grown.cpuPerRequest.server)}, ${cpu(r.fresh.cpuPerRequest.database, r.grown.cpuPerRequest.database)}`,
      );
      checks.push({ what: `growth, ${r.name}: req/s grown/fresh`, value: `${rps.toFixed(2)} ×`, target: `≥ ${GROWTH_TARGETS.requestsPerSecond.toFixed(2)} ×`, met: rps >= GROWTH_TARGETS.requestsPerSecond && r.fresh.failures + r.grown.failures === 0 });
      checks.push({ what: `growth, ${r.name}: p99 grown/fresh`, value: `${p99.toFixed(2)} ×`, target: `≤ ${GROWTH_TARGETS.p99.toFixed(2)} ×`, met: p99 <= GROWTH_TARGETS.p99 });
    }
  }
  checks.push({ what: 'service peak RSS (VmHWM)', value: `${rss.toFixed(0)} MiB`, target: `≤ ${TARGETS.rssMiB} MiB`, met: rss <= TARGETS.rssMiB });
  const median = [...startups].sort((a, b) => a - b)[Math.floor(startups.length / 2)];
  checks.push({
    what: `start-up, npm start → /health 200 (median of ${startups.map((s) => s.toFixed(2)).join(', ')} s)`,
    value: `${median.toFixed(2)} s`,
    target: `≤ ${TARGETS.startSeconds} s`,
    met: median <= TARGETS.startSeconds,
  });
  console.log(`\n${'target'.padEnd(76)}${pad('value', 10)}${pad('target', 12)}  met`);
  for (const c of checks) console.log(`${c.what.padEnd(76)}${pad(c.value, 10)}${pad(c.target, 12)}  ${c.met ? 'yes' : 'NO'}`);
  console.log(`\nledger check (${ledger.transactions} transactions): ${ledger.problems.length ? ledger.problems.join('; ') : 'balanced, balances and last entry times = entries, money conserved, no wallet below 0.00'}`);
  const missed = checks.filter((c) => !c.met).length;
  console.log(missed ? `${missed} target(s) missed` : 'every target met');
  failed = missed > 0 || ledger.problems.length > 0;
} catch (err) {
  console.error(err);
  failed = true;
  if (memory) {
    memory.mark('until the failure above');
    printMemory(memory);
  }
} finally {
  if (reference) await stop(reference.child);
  if (service) await stop(service.child, servicePid(service.child.pid!));
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
