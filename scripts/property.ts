/**
 * `npm run property`: the property test's load and checks at scale. Starts a
 * fresh embedded PostgreSQL and two service processes (src/main.ts) on it, runs
 * OPERATIONS random concurrent money operations of every kind over both (duplicate
 * Idempotency-Keys, refunds past the cap, double reversals, suspended wallets, …), then
 * checks the answers, the database records, the read-back of every acknowledged
 * transaction and the ledger invariants. Prints throughput, outcome counts per kind and
 * each invariant's result; exits 1 on any violation. Everything it starts, it stops.
 *
 *   npm run property                                    (100000 operations, 24 in flight)
 *   OPERATIONS=20000 CONCURRENCY=32 SEED=123 npm run property
 *   BUSINESSES (4), WALLETS per business (8), TIME_LIMIT_SECONDS for the load (10800)
 */
import knex, { type Knex } from 'knex';
import { loadContracts } from '../test/support/contract.js';
import { Progress } from '../test/support/property/load.js';
import { killServiceProcess, startDatabase, startServiceProcess, type Database, type ServiceProcess } from '../test/support/property/processes.js';
import { seedFrom } from '../test/support/property/random.js';
import { allViolations, checkProperty, formatReport, runProperty } from '../test/support/property/run.js';
import { Instances } from '../test/support/property/transport.js';

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return Number(raw);
}

const OPERATIONS = intEnv('OPERATIONS', 100_000);
const CONCURRENCY = intEnv('CONCURRENCY', 24);
const BUSINESSES = intEnv('BUSINESSES', 4);
const WALLETS = Math.max(intEnv('WALLETS', 8), 3);
const TIME_LIMIT_SECONDS = intEnv('TIME_LIMIT_SECONDS', 3 * 3600);
const seed = seedFrom(process.env.SEED);

let database: Database | undefined;
let db: Knex | undefined;
const services: ServiceProcess[] = [];
let stopping = false;

async function cleanUp(): Promise<void> {
  stopping = true;
  await Promise.all(services.map((s) => killServiceProcess(s)));
  await db?.destroy();
  await database?.stop();
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`${signal}: stopping the services and PostgreSQL…`);
    void cleanUp().finally(() => process.exit(130));
  });
}

let exitCode = 1;
try {
  console.log(`property run: ${OPERATIONS} operations, ${CONCURRENCY} in flight, ${BUSINESSES} businesses × ${WALLETS} wallets, seed ${seed} (replay with SEED=${seed})`);
  await loadContracts();
  database = await startDatabase();
  db = knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 4 } });
  services.push(await startServiceProcess(database.url)); // one after the other: the first migrates
  services.push(await startServiceProcess(database.url));
  const instances = new Instances(services.map((s) => s.url));
  const progress = new Progress();
  for (const s of services) {
    // An instance that dies on its own ends the run: report how, rather than thousands of refused connections.
    void s.exited.then(({ code, signal }) => {
      if (stopping) return;
      const why = `service ${s.url} (pid ${s.child.pid}) exited during the load: code ${code}, signal ${signal}; its output:\n${s.output()}`;
      console.error(why);
      progress.stop(why);
    });
  }
  const started = performance.now();
  const ticker = setInterval(() => {
    const s = (performance.now() - started) / 1000;
    console.log(`  ${progress.finished}/${OPERATIONS} operations, ${(progress.finished / s).toFixed(1)} ops/s`);
  }, 15_000);
  ticker.unref();
  const log = await runProperty(instances, {
    seed,
    operations: OPERATIONS,
    concurrency: CONCURRENCY,
    businesses: BUSINESSES,
    walletsPerBusiness: WALLETS,
    overdraftWallets: 2,
    deadlineMs: TIME_LIMIT_SECONDS * 1000,
  }, progress);
  clearInterval(ticker);
  if (progress.stopped) throw new Error(progress.stopped);
  console.log('checking…');
  const report = await checkProperty(db, log, instances.list(), CONCURRENCY);
  console.log(formatReport(report, 50));
  const violations = allViolations(report);
  if (log.moneyOps < OPERATIONS) console.log(`only ${log.moneyOps} of ${OPERATIONS} operations ran within TIME_LIMIT_SECONDS=${TIME_LIMIT_SECONDS}`);
  console.log(violations.length ? `FAILED: ${violations.length} violation(s), seed ${seed}` : 'all invariants hold');
  exitCode = violations.length || log.moneyOps < OPERATIONS ? 1 : 0;
} catch (err) {
  console.error(err);
  for (const s of services) console.error(`service ${s.url} output:\n${s.output()}`);
} finally {
  await cleanUp();
}
process.exit(exitCode);
