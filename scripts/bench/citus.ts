/**
 * `ONLY=citus npm run bench`: the service on a Citus cluster (a coordinator and two
 * workers, scripts/citus/cluster.ts) beside the same service on one PostgreSQL 15 with the
 * same settings, in one run, so that the ratio is the distribution's cost and not the
 * machine's.
 *
 * 1. Starts both databases in a new temporary folder (the cluster on CITUS_PORT or 9850
 *    and the next two ports, the single PostgreSQL on the port after them); migrates both
 *    with `npm start` and distributes the cluster's (`npm run db:distribute`), with
 *    `citus.multi_task_query_log_level = 'error'` for its database as in the Citus suite:
 *    a request whose statement Citus splits over several shards fails, and counts below.
 * 2. Starts the service on each (`npm start`, pool DB_POOL_SIZE) and makes the dataset on each through
 *    its API (a business, WALLETS wallets).
 * 3. For transfers between random wallets, funds from the hot operational account and
 *    getWallet: both services in alternating turns (scripts/bench/load.ts), then per
 *    scenario the cluster's rate and p99 over the single PostgreSQL's, the database CPU
 *    per request and the coordinator's share of it, Citus's own count of statements run
 *    on one shard and on several (`citus_stat_counters`), and its two-phase commits
 *    (`pg_dist_transaction`, its recovery paused during the run).
 * 4. Checks each business's ledger.
 * 5. Many businesses spread over both workers at a fixed rate, the database CPU per request
 *    by node and the backends' memory, and with SOAK_SECONDS a soak (./manyBusinesses.ts).
 *
 * Targets: no request refused (a statement split over shards would fail it), no two-phase
 * commit, and statements on several shards no more than the background's reads across
 * businesses (the outbox relay's two rounds a second, the job outbox's sweep). The rates
 * are printed, not targeted: docs/scale-out.md and openapi/DESIGN.md ("Running on Citus")
 * say what they decide. The many businesses' targets are printed as a table of checks and
 * count as the others. Settings: SECONDS, WARMUP, CONNECTIONS, WALLETS, DB_POOL_SIZE,
 * BUSINESSES, BUSINESS_WALLETS, RATE, SOAK_SECONDS as for the bench (./knobs.ts), and
 * CITUS_PORT. Every node counts top-level statements only (`pg_stat_statements.track = top`):
 * with `all`, the coordinator would count a statement and the shard's statement it runs
 * locally, and the workers the statements inside each delegated function, each a cost of
 * its own during the timing. Returns the exit status.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/db/embedded.js';
import { clusterUp, distribute, migrateByStart, nodesDestroy, singleUp, sql, type Nodes } from '../citus/cluster.js';
import { KNOBS } from './knobs.js';
import { comparePair, type LoadResult, type Target } from './load.js';
import { cpuMs, postgresCpuMs, servicePid, spawnServer, stop, waitHealthy, type Spawned } from './processes.js';
import { serviceRequests } from './requests.js';
import { checkLedger, createDataset, waitUntilQuiet } from './dataset.js';
import { runManyBusinesses } from './manyBusinesses.js';
import { printChecks } from './print.js';

const { seconds: SECONDS, warmup: WARMUP, connections: CONNECTIONS, wallets: WALLETS } = KNOBS;
const POOL_SIZE = String(KNOBS.poolSize);
/** Statements on several shards a second that the background may send (relay rounds, the sweep, with room). */
const BACKGROUND_MULTI_SHARD_PER_SECOND = 3;

/** One side of the comparison: its database, its service, its dataset's business. */
interface Side {
  name: string;
  url: string;
  dataDirs: string[];
  service: Spawned;
  pid: number;
  dataset: Awaited<ReturnType<typeof createDataset>>;
}

async function startSide(name: string, url: string, dataDirs: string[], logDir: string): Promise<Side> {
  const port = await freePort();
  const env = { DATABASE_URL: url, PORT: String(port), DB_POOL_SIZE: POOL_SIZE, PAYOUT_PROCESSING_MS: '0', RATE_LIMIT_PER_MINUTE: '100000000', RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '100000000', SANDBOX: 'true' };
  const service = spawnServer('npm', ['start', '--silent'], env, port, path.join(logDir, `${name}.log`));
  await waitHealthy(service, 180_000);
  const pid = servicePid(service.child.pid!);
  const dataset = await createDataset(service.url, WALLETS);
  return { name, url, dataDirs, service, pid, dataset };
}

/** Sums the CPU time of the PostgreSQL clusters in `dirs`. */
const databaseCpu = (dirs: string[]) => dirs.reduce((sum, dir) => sum + postgresCpuMs(dir), 0);

/** Citus's counters for the database `wallet` on the coordinator, and its recorded two-phase commits. */
async function counters(url: string): Promise<{ single: number; multi: number; connections: number; twoPhase: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT query_execution_single_shard::int AS single, query_execution_multi_shard::int AS multi,
              connection_establishment_succeeded::int AS connections,
              (SELECT count(*)::int FROM pg_dist_transaction) AS "twoPhase"
         FROM citus_stat_counters WHERE name = current_database()`,
    );
    return rows[0];
  } finally {
    await client.end();
  }
}

/** The top-level statements that took most of the time on the node at `port` since its last reset. */
function topStatements(port: number, limit: number): string[] {
  const rows = sql(
    port,
    `SELECT round(total_exec_time)::int || ' ms' || chr(9) || calls || chr(9) || round(mean_exec_time::numeric, 3) || ' ms' || chr(9) || left(regexp_replace(query, '\\s+', ' ', 'g'), 90)
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY total_exec_time DESC LIMIT ${limit}`,
  );
  return rows ? rows.split('\n') : [];
}

/** Runs the Citus bench; returns 0 when every target holds, 1 otherwise. */
export async function runCitusBench(): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), 'wallet-bench-citus-'));
  chmodSync(dir, 0o755); // the nodes run as the `postgres` user when we are root
  const port = Number(process.env.CITUS_PORT || 9850);
  const cluster: Nodes = { dir: path.join(dir, 'cluster'), port };
  const single: Nodes = { dir: path.join(dir, 'single'), port: port + 3 };
  const sides: Side[] = [];
  let failed = false;
  try {
    console.log(`wallet-service on Citus: ${CONNECTIONS} connections, ${WALLETS} wallets, ${WARMUP} s warm-up + ${SECONDS} s per run, pool ${POOL_SIZE}`);
    const citusUrl = clusterUp(cluster);
    const singleUrl = singleUp(single);
    await Promise.all([migrateByStart(citusUrl), migrateByStart(singleUrl)]);
    distribute(citusUrl);
    sql(port, "ALTER DATABASE wallet SET citus.multi_task_query_log_level = 'error'");
    sql(port, 'ALTER SYSTEM SET citus.enable_stat_counters = on');
    sql(port, 'ALTER SYSTEM SET citus.recover_2pc_interval = -1');
    sql(port, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    for (const node of [port, port + 1, port + 2, single.port]) {
      if (node === single.port) sql(node, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      sql(node, "ALTER SYSTEM SET pg_stat_statements.track = 'top'");
      sql(node, 'SELECT pg_reload_conf()');
    }
    const nodeDirs = ['coordinator', 'worker-1', 'worker-2'].map((n) => path.join(cluster.dir, n));
    sides.push(await startSide('single', singleUrl, [path.join(single.dir, 'single')], dir));
    sides.push(await startSide('citus', citusUrl, nodeDirs, dir));
    const [plain, citus] = sides;
    // The worker that holds the bench business: where its statements run.
    const worker = Number(
      sql(port, `SELECT n.nodeport FROM pg_dist_placement p JOIN pg_dist_node n ON n.groupid = p.groupid WHERE p.shardid = get_shard_id_for_distribution_column('accounts', '${citus.dataset.businessId}')`),
    );
    const target = (side: Side, build: Target['build']): Target => ({ url: side.service.url, build, cpu: () => ({ server: cpuMs(side.pid), database: databaseCpu(side.dataDirs) }) });
    const [plainRequests, citusRequests] = [serviceRequests(plain.dataset), serviceRequests(citus.dataset)];
    const scenarios = [
      { name: 'transfer (random wallets)', plain: plainRequests.transfer, citus: citusRequests.transfer },
      { name: 'fund (hot operational account)', plain: plainRequests.fund, citus: citusRequests.fund },
      { name: 'getWallet', plain: plainRequests.getWallet, citus: citusRequests.getWallet },
    ];
    const where: string[] = [];
    const rows: { name: string; plain: LoadResult; citus: LoadResult; coordinatorShare: number; single: number; multi: number; connections: number; twoPhase: number; seconds: number }[] = [];
    for (const s of scenarios) {
      await Promise.all([waitUntilQuiet(singleUrl), waitUntilQuiet(citusUrl)]);
      for (const node of [port, port + 1, port + 2, single.port]) sql(node, 'SELECT pg_stat_statements_reset()');
      const before = await counters(citusUrl);
      const [coordinatorBefore, workersBefore] = [databaseCpu(nodeDirs.slice(0, 1)), databaseCpu(nodeDirs.slice(1))];
      const t0 = performance.now();
      const [p, c] = await comparePair(target(plain, s.plain), target(citus, s.citus), { connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP });
      const seconds = (performance.now() - t0) / 1000;
      const after = await counters(citusUrl);
      const coordinator = databaseCpu(nodeDirs.slice(0, 1)) - coordinatorBefore;
      const workers = databaseCpu(nodeDirs.slice(1)) - workersBefore;
      where.push(`\n${s.name}: the statements that took most time, on one PostgreSQL and on the business's worker (total, calls, mean, statement)`);
      where.push(...topStatements(single.port, 4).map((l) => `  single    ${l}`), ...topStatements(worker, 8).map((l) => `  worker    ${l}`));
      rows.push({ name: s.name, plain: p, citus: c, coordinatorShare: coordinator / (coordinator + workers), single: after.single - before.single, multi: after.multi - before.multi, connections: after.connections - before.connections, twoPhase: after.twoPhase - before.twoPhase, seconds });
    }

    const pad = (v: string | number, n: number) => String(v).padStart(n);
    console.log(`\n${'scenario'.padEnd(32)}${pad('single req/s', 13)}${pad('Citus req/s', 12)}${pad('ratio', 7)}${pad('p50 ms', 12)}${pad('p99 ms', 14)}${pad('DB CPU ms/req', 15)}${pad('coord.', 8)}${pad('non-2xx', 9)}`);
    for (const r of rows) {
      console.log(
        `${r.name.padEnd(32)}${pad(r.plain.requestsPerSecond.toFixed(0), 13)}${pad(r.citus.requestsPerSecond.toFixed(0), 12)}${pad((r.citus.requestsPerSecond / r.plain.requestsPerSecond).toFixed(2), 7)}` +
          `${pad(`${r.plain.p50.toFixed(1)}/${r.citus.p50.toFixed(1)}`, 12)}${pad(`${r.plain.p99.toFixed(1)}/${r.citus.p99.toFixed(1)}`, 14)}` +
          `${pad(`${r.plain.cpuPerRequest.database.toFixed(2)}/${r.citus.cpuPerRequest.database.toFixed(2)}`, 15)}${pad(`${(r.coordinatorShare * 100).toFixed(0)} %`, 8)}${pad(`${r.plain.failures}/${r.citus.failures}`, 9)}`,
      );
    }
    console.log(`\n${'on the cluster'.padEnd(32)}${pad('one shard', 11)}${pad('several', 9)}${pad('several/s', 11)}${pad('one-shard share', 17)}${pad('2PC', 5)}${pad('new connections', 17)}`);
    for (const r of rows) {
      console.log(`${r.name.padEnd(32)}${pad(r.single, 11)}${pad(r.multi, 9)}${pad((r.multi / r.seconds).toFixed(1), 11)}${pad(`${((100 * r.single) / (r.single + r.multi)).toFixed(2)} %`, 17)}${pad(r.twoPhase, 5)}${pad(r.connections, 17)}`);
      if (r.citus.failures > 0 || r.plain.failures > 0) failed = true;
      if (r.twoPhase > 0) failed = true;
      if (r.multi / r.seconds > BACKGROUND_MULTI_SHARD_PER_SECOND) failed = true;
    }
    console.log('(p50, p99 and DB CPU: single/Citus; coord.: the coordinator\'s share of the cluster\'s CPU; several: statements Citus split over shards, the background\'s reads across businesses; new connections: the coordinator\'s to the workers)');
    console.log(where.join('\n'));
    const many = await runManyBusinesses({
      single: plain,
      citus,
      coordinatorPort: port,
      twoPhase: async () => (await counters(citusUrl)).twoPhase,
    });
    if (printChecks(many) > 0) failed = true;
    for (const side of sides) {
      // The check's reads may span shards: the suite's setting is off for its connection.
      const ledger = await checkLedger(`${side.url}?options=${encodeURIComponent('-c citus.multi_task_query_log_level=off')}`, side.dataset.businessId);
      console.log(`ledger on ${side.name}: ${ledger.transactions} transactions, ${ledger.problems.length === 0 ? 'every invariant holds' : ledger.problems.join('; ')}`);
      if (ledger.problems.length > 0) failed = true;
    }
    console.log(failed ? '\nCitus bench: a target missed' : '\nCitus bench: every target met');
  } catch (err) {
    console.error(err);
    failed = true;
  } finally {
    for (const side of sides) await stop(side.service.child, side.pid).catch(() => undefined);
    nodesDestroy(cluster);
    nodesDestroy(single);
    rmSync(dir, { recursive: true, force: true });
  }
  return failed ? 1 : 0;
}
