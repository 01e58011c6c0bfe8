/**
 * `npm run test:ha`: the failover drill. Starts a highly available PostgreSQL of its own
 * (`npm run ha -- up`, scripts/ha/cluster.ts, in a new temporary folder or HA_DIR) and runs
 * mocha on the drill (test/ha/*.ha.ts, outside `npm test`'s glob) with DATABASE_URL on
 * HAProxy's read-write port and HA_DIR naming the cluster. The cluster is destroyed
 * afterwards unless HA_KEEP=1. Exits with mocha's status. Needs the Debian packages of
 * scripts/ha/install.sh (root, once; `up` runs it when one is missing).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clusterDestroy, clusterStatus, clusterUp, ROOT } from './ha/cluster.js';

const dir = process.env.HA_DIR || mkdtempSync(path.join(tmpdir(), 'wallet-ha-'));
let status = 1;
try {
  const url = await clusterUp(dir);
  console.error(`HA cluster up in ${dir}: ${JSON.stringify(await clusterStatus(dir))}`);
  const files = process.argv.slice(2).length ? process.argv.slice(2) : ['test/ha/*.ha.ts'];
  const mocha = spawnSync('npx', ['mocha', '--timeout', '900000', ...files], { cwd: ROOT, env: { ...process.env, DATABASE_URL: url, HA_DIR: dir }, stdio: 'inherit' });
  status = mocha.status ?? 1;
} catch (err) {
  console.error((err as Error).message);
} finally {
  if (!process.env.HA_KEEP) await clusterDestroy(dir);
}
process.exit(status);
