/**
 * What every scenario of `npm run bench` runs against: the service started with `npm start`
 * on a fresh DATA_DIR (first start: initdb, migrations, sandbox demo data), then started KNOBS.starts
 * times more on it, timed spawn → first 200 from /health, the last start staying up (its
 * own process: its peak RSS is its own); a business and its wallets made through the API (the bench's dataset); the bare
 * reference (scripts/reference-server.ts) on the service's embedded PostgreSQL with the
 * same pool; the service's memory by phase; and the machine's speed, the reference's
 * transfers a second in this run, which scales the targets in seconds.
 */
import { chmodSync, createReadStream, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/db/embedded.js';
import { KNOBS } from './knobs.js';
import { measure, type CpuReading, type LoadRequest, type Target } from './load.js';
import { cpuMs, MemoryPhases, postgresCpuMs, postgresPort, servicePid, spawnServer, stop, waitHealthy, type Spawned } from './processes.js';
import { referenceRequests, serviceRequests, type Dataset } from './requests.js';
import { createDataset } from './dataset.js';
import { prepareStatementStats, referenceDatabaseUrl, REFERENCE_ROLE, statementTime } from './statements.js';

/**
 * The reference's transfers a second on the machine where the targets in seconds were set
 * (2,300–2,500 there): each such target is scaled by this over the reference's transfers a
 * second in the same run (openapi/DESIGN.md, "Benchmark targets relative to the bare
 * stack"): on a machine half as fast a target of 30 s is 60 s.
 */
export const TARGETS_SET_AT_REFERENCE_TRANSFERS = 2_400;

export interface BenchContext {
  serviceUrl: string;
  servicePid: number;
  databaseUrl: string;
  dataset: Dataset;
  /** The bench business's requests to the service and to the reference (./requests.ts). */
  requests: { service: ReturnType<typeof serviceRequests>; reference: ReturnType<typeof referenceRequests> };
  startups: number[];
  memory: MemoryPhases;
  /** CPU time so far of the service's process and of the database cluster. */
  serviceCpu(): CpuReading;
  /** The service under load with request `build`: its CPU and the database's. */
  serviceTarget(build: () => LoadRequest): Target;
  /** The reference under load with request `build`. */
  referenceTarget(build: () => LoadRequest): Target;
  /** The reference's transfers a second in this run: the one measured by a scenario, or measured now. */
  machine(): Promise<{ referenceTransfers: number; factor: number }>;
  /** Records the reference's transfers a second a scenario measured. */
  noteReferenceTransfers(perSecond: number): void;
  stop(): Promise<void>;
}

/**
 * The service log's lines of requests answered other than 2xx or 3xx, and its warnings and
 * errors (pino levels 40 and up), copied out of the run's data directory before it is removed
 * and their file named, when there are any: a run whose table counts non-2xx responses says
 * which requests they were and why.
 */
async function keepFailures(serviceLog: string): Promise<void> {
  if (!existsSync(serviceLog)) return;
  const failed: string[] = [];
  // Line by line: a full run's log is a few hundred MB.
  for await (const line of createInterface({ input: createReadStream(serviceLog), crlfDelay: Infinity })) {
    if (/"level":[4-6]0|"status":[45]\d\d/.test(line)) failed.push(line);
  }
  if (failed.length === 0) return;
  const kept = path.join(tmpdir(), `wallet-bench-failures-${new Date().toISOString().replace(/[:.]/g, '-')}.log`);
  writeFileSync(kept, `${failed.join('\n')}\n`);
  console.log(`the service's ${failed.length} log lines of failed requests, warnings and errors: ${kept}`);
}

/** Starts the service (timing its starts), makes its dataset and starts the reference. */
export async function startBench(): Promise<BenchContext> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-bench-'));
  chmodSync(dataDir, 0o755); // PostgreSQL runs as the `postgres` user when we are root
  const port = await freePort();
  const env = { PAYOUT_PROCESSING_MS: '0', PORT: String(port), DATA_DIR: dataDir, DB_POOL_SIZE: String(KNOBS.poolSize), RATE_LIMIT_PER_MINUTE: '100000000', RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '100000000', SANDBOX: 'true', ...(KNOBS.serviceNodeOptions ? { NODE_OPTIONS: KNOBS.serviceNodeOptions } : {}) };
  const servers: Spawned[] = [];
  const start = () => spawnServer('npm', ['start', '--silent'], env, port, path.join(dataDir, 'service.log'));
  const stopAll = async () => {
    await statements?.close().catch(() => undefined);
    for (const s of servers.splice(0).reverse()) await stop(s.child, s === service ? servicePid(s.child.pid!) : s.child.pid!);
    await keepFailures(path.join(dataDir, 'service.log'));
    rmSync(dataDir, { recursive: true, force: true });
  };
  let service = start();
  let statements: ReturnType<typeof statementTime> | undefined;
  const pgDataDir = path.join(dataDir, 'pg');
  try {
    await waitHealthy(service, 180_000);
    // Loaded at the next start: the starts below are timed with it, as every measurement after.
    await prepareStatementStats(`postgres://postgres:postgres@127.0.0.1:${postgresPort(pgDataDir)}/wallet`);
    await stop(service.child, servicePid(service.child.pid!));
    const startups: number[] = [];
    for (let i = 0; i < KNOBS.starts; i++) {
      const t0 = performance.now();
      service = start();
      await waitHealthy(service);
      startups.push((performance.now() - t0) / 1000);
      if (i < KNOBS.starts - 1) await stop(service.child, servicePid(service.child.pid!));
    }
    servers.push(service);
    const pid = servicePid(service.child.pid!);
    const memory = new MemoryPhases(pid);
    memory.mark('start-up');
    const dataset = await createDataset(service.url, KNOBS.wallets);
    memory.mark(`dataset: ${KNOBS.wallets} wallets`);
    const databaseUrl = `postgres://postgres:postgres@127.0.0.1:${postgresPort(pgDataDir)}/wallet`;
    const referencePort = await freePort();
    const reference = spawnServer(process.execPath, ['--import', 'tsx', 'scripts/reference-server.ts'], { DATABASE_URL: referenceDatabaseUrl(databaseUrl), PORT: String(referencePort), DB_POOL_SIZE: String(KNOBS.poolSize) }, referencePort, path.join(dataDir, 'reference.log'));
    servers.push(reference);
    await waitHealthy(reference);
    const requests = { service: serviceRequests(dataset), reference: referenceRequests(dataset) };
    statements = statementTime(databaseUrl);
    const referenceStatements = statements.of(REFERENCE_ROLE);
    const serviceStatements = statements.of('postgres');
    const referenceTarget = (build: () => LoadRequest): Target => ({
      url: reference.url,
      build,
      cpu: () => ({ server: cpuMs(reference.child.pid!), database: postgresCpuMs(pgDataDir) }),
      statementMs: referenceStatements,
    });
    let referenceTransfers: number | undefined;
    const serviceCpu = () => ({ server: cpuMs(pid), database: postgresCpuMs(pgDataDir) });
    return {
      serviceUrl: service.url,
      servicePid: pid,
      databaseUrl,
      dataset,
      requests,
      startups,
      memory,
      serviceCpu,
      serviceTarget: (build) => ({ url: service.url, build, cpu: serviceCpu, statementMs: serviceStatements }),
      referenceTarget,
      async machine() {
        referenceTransfers ??= (await measure(referenceTarget(requests.reference.transfer), { connections: KNOBS.connections, seconds: KNOBS.seconds, warmupSeconds: KNOBS.warmup })).requestsPerSecond;
        return { referenceTransfers, factor: TARGETS_SET_AT_REFERENCE_TRANSFERS / referenceTransfers };
      },
      noteReferenceTransfers(perSecond) {
        referenceTransfers = perSecond;
      },
      stop: stopAll,
    };
  } catch (err) {
    if (!servers.includes(service)) servers.push(service);
    await stopAll().catch(() => undefined);
    throw err;
  }
}
