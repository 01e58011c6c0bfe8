/**
 * `DATABASE_URL=… npm run db:distribute`: distributes a database migrated by `npm start`
 * on the coordinator of a Citus cluster whose workers are added (docs/scale-out.md): every
 * table placed by its class, the rows already there moved to the shards, the functions
 * delegated or propagated, then checked (src/db/distribution.ts). Idempotent: run twice,
 * the second run changes nothing. Exits 1, naming what is wrong, when the check fails.
 * CITUS_SHARD_COUNT: shards per table at the first run (default 32).
 */
import pg from 'pg';
import { distribute } from '../src/db/distribution.js';
import { sqlDefinitions } from '../src/db/sqlFunctions.js';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('DATABASE_URL names the coordinator of the Citus cluster (npm run citus -- url)');
  process.exit(2);
}
const client = new pg.Client({ connectionString: url });
await client.connect();
try {
  const started = Date.now();
  await distribute(client, sqlDefinitions().flatMap((d) => d.functions), {
    shardCount: process.env.CITUS_SHARD_COUNT ? Number(process.env.CITUS_SHARD_COUNT) : undefined,
    log: (line) => console.error(line),
  });
  console.error(`distributed and checked in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (err) {
  console.error((err as Error).message);
  process.exitCode = 1;
} finally {
  await client.end();
}
