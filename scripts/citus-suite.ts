/**
 * `npm run test:citus`: the Citus suite. On a coordinator and two workers of its own
 * (`npm run citus`, data in a new temporary folder, CITUS_PORT or 9800 and the next two
 * ports), as an operator would:
 *   1. `npm start` migrates the coordinator's database (and is stopped);
 *   2. `npm run db:distribute` distributes it, twice: the second run must change nothing;
 *   3. every statement the service sends that Citus would split over several shards fails
 *      from then on (`citus.multi_task_query_log_level = 'error'` for the database), but in
 *      `acrossBusinesses` (src/db/acrossBusinesses.ts);
 *   4. mocha runs the Citus tests (test/citus/) and the flows of the plain suite listed in
 *      CITUS_SUITE below against the distributed database (DATABASE_URL).
 * The cluster is destroyed afterwards unless CITUS_KEEP=1. Exits with mocha's status.
 * Needs Citus for Debian's PostgreSQL 15: `npm run citus -- up` installs it (root, once).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { clusterUp, distribute, migrateByStart, nodesDestroy, ROOT, type Nodes } from './citus/cluster.js';

/** The plain suite's flows the Citus suite runs again on the distributed database. */
export const CITUS_SUITE = [
  'test/citus/*.citus.ts',
  'test/ledger/moneyMovement.test.ts',
  'test/ledger/statements.test.ts',
  'test/ledger/transactions.test.ts',
  'test/ledger/coreTransactions.test.ts',
  'test/ledger/moneyProperty.test.ts',
  'test/businesses/wallets.test.ts',
  'test/businesses/labels.test.ts',
  'test/businesses/apiKeys.test.ts',
  'test/audit/auditLog.test.ts',
  'test/audit/requestLog.test.ts',
  'test/businesses/portalUsers.test.ts',
  'test/customers/onboarding.test.ts',
  'test/customers/customerInformation.test.ts',
  'test/customers/mobileNumberChange.test.ts',
  'test/payouts/payouts.test.ts',
  'test/payouts/bulkPayouts.test.ts',
  'test/payouts/payoutWebhooks.test.ts',
  'test/payouts/payoutWhitelist.test.ts',
  'test/payouts/payoutApprovals.test.ts',
  'test/payouts/payoutSummary.test.ts',
  'test/businesses/exports.test.ts',
  'test/cards/cardIssuance.test.ts',
  'test/cards/cards.test.ts',
  'test/cards/cardSimulator.test.ts',
  'test/webhooks/webhookDelivery.test.ts',
  'test/webhooks/webhooks.test.ts',
  'test/webhooks/webhookOperations.test.ts',
  'test/webhooks/endpointHealth.test.ts',
  'test/webhooks/attemptDetails.test.ts',
  'test/webhooks/events.test.ts',
  'test/search/search.test.ts',
  'test/contract/workflows.test.ts',
  'test/contract/guides.test.ts',
];

const dir = process.env.CITUS_DIR || mkdtempSync(path.join(tmpdir(), 'wallet-citus-'));
mkdirSync(dir, { recursive: true });
chmodSync(dir, 0o755); // the nodes run as the `postgres` user when we are root
const nodes: Nodes = { dir, port: Number(process.env.CITUS_PORT || 9800) };

/** What the distribution placed: tables, shards, distributed objects (to compare two runs). */
async function placement(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT (SELECT json_agg(p ORDER BY p.logicalrelid::text) FROM (SELECT logicalrelid::text, partmethod, colocationid, repmodel FROM pg_dist_partition) p) AS tables,
              (SELECT count(*) FROM pg_dist_shard) AS shards,
              (SELECT json_agg(o ORDER BY o.objid) FROM (SELECT objid::regprocedure::text AS objid, distribution_argument_index, colocationid, force_delegation
                                                      FROM pg_dist_object WHERE classid = 'pg_proc'::regclass) o) AS functions`,
    );
    return JSON.stringify(rows[0]);
  } finally {
    await client.end();
  }
}

let status = 1;
try {
  const url = clusterUp(nodes);
  console.error(`Citus cluster up: coordinator 127.0.0.1:${nodes.port}, workers ${nodes.port + 1}, ${nodes.port + 2} (data in ${dir})`);
  console.error(`migrating ${url} with npm start`);
  await migrateByStart(url);
  distribute(url);
  const first = await placement(url);
  distribute(url);
  if ((await placement(url)) !== first) throw new Error('a second npm run db:distribute changed the placement');
  console.error('distributed twice, the same placement');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("ALTER DATABASE wallet SET citus.multi_task_query_log_level = 'error'");
  await client.end();
  const mocha = spawnSync('npx', ['mocha', '--timeout', '120000', ...(process.argv.slice(2).length ? process.argv.slice(2) : CITUS_SUITE)], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url, CITUS_SUITE: '1' },
    stdio: 'inherit',
  });
  status = mocha.status ?? 1;
} catch (err) {
  console.error((err as Error).message);
} finally {
  if (!process.env.CITUS_KEEP) {
    nodesDestroy(nodes);
    if (!process.env.CITUS_DIR) rmSync(dir, { recursive: true, force: true });
  }
}
process.exit(status);
