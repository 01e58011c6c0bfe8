/**
 * `npm run citus -- up|down|destroy|status|url`: a Citus cluster on this machine for trying
 * the service distributed (docs/scale-out.md), the nodes of scripts/citus/cluster.ts.
 *
 *   up      installs Citus into Debian's PostgreSQL 15 when it is missing (CITUS_INSTALL,
 *           the project's copy of the install script), creates and starts a coordinator
 *           and two workers on loopback, registers them the official way
 *           (`citus_set_coordinator_host`, `citus_add_node`), creates the database
 *           `wallet` with the extension on each, and prints the coordinator's
 *           DATABASE_URL. Starting a cluster that is up does nothing but print it.
 *   down    stops the three nodes (their data stays; `up` starts them again).
 *   destroy stops them and deletes their data.
 *   status  prints each node's state.
 *   url     prints the DATABASE_URL alone.
 *
 * Settings (environment):
 *   CITUS_DIR   data of the nodes, one folder each (default `.data/citus`).
 *   CITUS_PORT  the coordinator's port; the workers take the next two (default 9700).
 *   CITUS_PG    PostgreSQL's binaries (default /usr/lib/postgresql/15/bin: Citus 13
 *               supports PostgreSQL 15–17, and Debian 12 ships 15).
 */
import path from 'node:path';
import { clusterStatus, clusterUp, databaseUrl, nodesDestroy, nodesDown, ROOT, type Nodes } from './citus/cluster.js';

const nodes: Nodes = {
  dir: path.resolve(process.env.CITUS_DIR || path.join(ROOT, '.data/citus')),
  port: Number(process.env.CITUS_PORT || 9700),
};

const command = process.argv[2];
if (command === 'up') {
  const url = clusterUp(nodes);
  console.error(`Citus cluster up: coordinator 127.0.0.1:${nodes.port}, workers ${nodes.port + 1}, ${nodes.port + 2} (data in ${nodes.dir})`);
  console.log(`DATABASE_URL=${url}`);
} else if (command === 'down') nodesDown(nodes);
else if (command === 'destroy') nodesDestroy(nodes);
else if (command === 'status') console.log(clusterStatus(nodes).join('\n'));
else if (command === 'url') console.log(databaseUrl(nodes.port));
else {
  console.error('usage: npm run citus -- up|down|destroy|status|url');
  process.exit(2);
}
