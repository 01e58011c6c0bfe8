/**
 * Starts the whole service: database (DATABASE_URL, or an embedded PostgreSQL
 * under DATA_DIR), migrations, the capabilities' faces (each starts what it runs from its
 * own settings: the sandbox's demo data, the keys, payout processing, the webhooks), and the HTTP server.
 * Used by `npm start` (src/main.ts) and by the tests.
 *
 * The embedded PostgreSQL is started first: it comes up in its own process
 * while this one loads the HTTP stack and the database client (imported here
 * only then, for that reason).
 */
import type { Server } from 'node:http';
import type { Knex } from 'knex';
import { checkConfig, type Config } from './config.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.js';
import { PRECOMPILED_API_DIR, RUNNING_COMPILED } from './paths.js';
import { JobQueue } from './jobs/queue.js';
import { OutageLog } from './db/unavailable.js';
import { createLogger, type Logger } from './log.js';
import { instanceKeys, type StartContext, type Started } from './kernel/capability.js';
import { configureBackground } from './kernel/scheduling/background.js';
import { lowPriorityConnections } from './db/priority.js';
import type { ApiVersion } from './kernel/versioning/apiVersions.js';
import type { Deprecation } from './http/deprecation.js';

/** How long requests in flight may take to finish on shutdown. */
const SHUTDOWN_GRACE_MS = 5_000;
/** How long jobs in flight get on shutdown (in parallel with the requests' grace). */
const JOBS_STOP_MS = 3_000;

/** Waits for `promise`, but at most `ms` (its failure counts as done: shutdown goes on). */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** The host part of a URL that reaches a server bound to `host` (a wildcard address: loopback). */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** The faces of the capabilities that start with the instance, in the order they start (loaded with the HTTP stack). */
const CAPABILITIES = (): Promise<{ start(ctx: StartContext): Promise<Started> }>[] => [
  import('./businesses/index.js'),
  import('./customers/index.js'),
  import('./cards/index.js'),
  import('./payouts/index.js'),
  import('./webhooks/index.js'),
  import('./audit/index.js'),
];

/** The `application_name` of the background lane's sessions (what `pg_stat_activity` shows for them). */
export const BACKGROUND_APPLICATION_NAME = 'wallet-service-background';

/** A started service (startService): its address, its database, its logs and how to stop it. */
export interface RunningService {
  /** Base URL, e.g. http://127.0.0.1:3000 */
  url: string;
  /** Connection string of the database it runs on. */
  databaseUrl: string;
  db: Knex;
  /** The service's logger. */
  log: Logger;
  /** The service's database outage log (background failures are reported to it). */
  outages: OutageLog;
  /** Stops the HTTP server, the pool and the embedded PostgreSQL (if any). */
  close(): Promise<void>;
}

/**
 * Starts the service per `config`, bound to `config.host` (or `opts.host`).
 * `persistent: false` makes an embedded database that is deleted on close (tests).
 * `apiDir`: the precompiled API documents (default: dist/api/ when running compiled,
 * none from sources). `quiet`: the embedded PostgreSQL's own log lines are dropped
 * (otherwise they are log lines at level debug). `log`: the logger (default: one per
 * `config.logLevel` and `config.logFile`).
 */
export async function startService(
  config: Config,
  opts: {
    persistent?: boolean;
    quiet?: boolean;
    host?: string;
    database?: string;
    apiDir?: string;
    log?: Logger;
    /** The deprecated API versions (src/http/versions.ts API_VERSION_DEPRECATIONS unless a test sunsets one). */
    versionDeprecations?: Partial<Record<ApiVersion, Deprecation>>;
  } = {},
): Promise<RunningService> {
  checkConfig(config); // before anything starts: a configuration that cannot run starts nothing
  const log = opts.log ?? createLogger({ level: config.logLevel, file: config.logFile });
  const given = opts.database ?? config.databaseUrl;
  const postgresLog = opts.quiet ? undefined : (line: string) => log.debug({ postgres: line }, 'embedded PostgreSQL');
  const starting = given ? undefined : startEmbeddedPostgres(config.dataDir, { persistent: opts.persistent ?? true, log: postgresLog });
  starting?.catch(() => undefined); // awaited below: an early failure must not go unhandled meanwhile
  const [
    { connectAndMigrate, openPool },
    { jwtKey },
    { createApp },
    { closedLoopOperations },
    { coreOperations },
    { createMetrics },
    { outboxBacklog },
    { businessApiVersion, clientPermissions, sessionPrincipal },
    capabilities,
    { otpKeys },
    { replayKeys },
    { portalPage },
    { docsPage },
    { ApiRequestLog },
  ] = await Promise.all([
    import('./db/knex.js'),
    import('./kernel/secrets/settings.js'),
    import('./http/app.js'),
    import('./handlers/closedLoop/index.js'),
    import('./handlers/core/index.js'),
    import('./kernel/metrics/metrics.js'),
    import('./events/outbox.js'),
    import('./businesses/index.js'),
    Promise.all(CAPABILITIES()),
    import('./kernel/otp/flowEnv.js'),
    import('./kernel/idempotency/idempotency.js'),
    import('./portal/portal.js'),
    import('./docs/docs.js'),
    import('./audit/index.js'),
  ]).catch(async (err) => {
    await starting?.then((e) => e.stop(), () => undefined);
    throw err;
  });
  const embedded: EmbeddedDatabase | undefined = await starting;
  if (embedded?.prepared.length) log.info({ folders: embedded.prepared }, 'data folder: its path made traversable for the postgres user (o+x), which runs the embedded PostgreSQL');
  const databaseUrl = given ?? embedded!.url;
  const db = await connectAndMigrate(databaseUrl, { poolSize: config.dbPoolSize, preparedStatements: config.dbPreparedStatements });
  // The background lane's own connections, one per slot and one for the background work's
  // reads (backgroundReads): on the embedded database at the lowest CPU priority
  // (src/db/priority.ts), so that they give way to the API's.
  const backgroundPool = openPool(databaseUrl, {
    poolSize: config.backgroundConcurrency + 1,
    preparedStatements: config.dbPreparedStatements,
    applicationName: BACKGROUND_APPLICATION_NAME,
    afterConnect: embedded ? lowPriorityConnections(log) : undefined,
  });
  // Generic plans for the lane's statements, but on Citus (src/kernel/scheduling/background.ts, GENERIC_PLANS).
  const citus: boolean = (await db.raw('SELECT database_distributed() AS citus')).rows[0].citus;
  configureBackground(db, { concurrency: config.backgroundConcurrency, restRatio: config.backgroundRestRatio, pool: backgroundPool, genericPlans: !citus });
  const apiDir = opts.apiDir ?? (RUNNING_COMPILED ? PRECOMPILED_API_DIR : undefined);
  const outages = new OutageLog(db, log);
  outages.watch(backgroundPool); // the outbox relay, whose queries end an outage, runs on it
  const jobs = await JobQueue.start({
    databaseUrl,
    db,
    log,
    outages,
    pollingIntervalSeconds: config.jobPollingIntervalMs / 1000,
    maintenanceIntervalSeconds: config.jobMaintenanceIntervalSeconds,
  });
  // Each capability's face starts what it runs, from its own settings, and derives its keys
  // once (src/kernel/capability.ts); the kernel's own keys (codes, kept answers) beside them.
  const started: Started[] = [];
  for (const capability of capabilities) started.push(await capability.start({ db, jobs, config, log, outages }));
  const keys = instanceKeys({ otp: await otpKeys(db, config), replays: await replayKeys(db, config) }, started);
  const services = { db, config, jwtKey: await jwtKey(db, config.jwtSecret), keys, log, metrics: createMetrics(db, outboxBacklog(db), backgroundPool), jobs };
  // The request log's queue, written after the answers; what it still holds at shutdown is written then.
  const requestLog = new ApiRequestLog(db, log, config.apiRequestLogQueue, outages);
  const app = await createApp(services, { closedLoop: closedLoopOperations, core: coreOperations }, { pages: [portalPage(config), docsPage], apiDir, outages, requestLog, pinnedVersion: (businessId) => businessApiVersion(db, businessId), clientPermissions: (clientId) => clientPermissions(db, clientId), sessionPrincipal: (cookie) => sessionPrincipal(db, config, cookie), versionDeprecations: opts.versionDeprecations });
  const host = opts.host ?? config.host;
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(config.port, host, () => resolve(s));
  });
  // Idle keep-alive sockets stay open longer than clients and load balancers keep
  // theirs (60 s is the common default), so a client never reuses a socket that the
  // server is closing at the same moment (ECONNRESET).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    url: `http://${urlHost(host)}:${port}`,
    databaseUrl,
    db,
    log,
    outages,
    async close() {
      // Refuse new connections, let requests in flight finish (idle keep-alive sockets
      // are closed at once), and cut what is still open after the grace period. At the
      // same time the job queue stops: deliveries in flight are interrupted and recorded,
      // their next attempt is due at once on another instance or after the restart.
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const queueStopped = (async () => {
        await Promise.all(started.map((s) => s.stop()));
        await jobs.stop(JOBS_STOP_MS);
      })();
      await Promise.all([within(drained, SHUTDOWN_GRACE_MS), within(queueStopped, JOBS_STOP_MS + 1_000)]);
      server.closeAllConnections();
      await within(requestLog.flush(), 2_000);
      await within(Promise.all([db.destroy(), backgroundPool.destroy()]), 2_000);
      if (embedded) await embedded.stop();
    },
  };
}
