/**
 * `npm run ha -- up DIR | status DIR | switchover DIR | down DIR | destroy DIR`: a highly
 * available PostgreSQL 15 on this machine (scripts/ha/cluster.ts): etcd, two nodes under
 * Patroni in synchronous mode, HAProxy's read-write port on the leader.
 *
 *   up          installs the Debian packages when missing (scripts/ha/install.sh), makes the
 *               cluster in DIR once, starts what is not running, waits for a primary behind
 *               HAProxy and a synchronous standby; its last line is `DATABASE_URL=…`.
 *   status      one JSON line: {leader: {name, port, pid}, replicas: [{name, role, state, lag}], primary_port}.
 *   switchover  hands the leadership to the synchronous standby (planned), waits until the
 *               old leader streams from the new one; prints the new leader's name.
 *   down        stops HAProxy, Patroni with its PostgreSQL, etcd; the data stays (`up` starts them again).
 *   destroy     stops everything and deletes DIR.
 *
 * Needs root for the install; run as root, PostgreSQL runs as the `postgres` user.
 */
import { clusterDestroy, clusterDown, clusterStatus, clusterUp, switchover } from './ha/cluster.js';

const [command, dir] = process.argv.slice(2);
if (!dir || !['up', 'status', 'switchover', 'down', 'destroy'].includes(command)) {
  console.error('usage: npm run ha -- up|status|switchover|down|destroy DIR');
  process.exit(2);
}
try {
  if (command === 'up') {
    const url = await clusterUp(dir);
    console.error(`HA cluster up in ${dir}: ${JSON.stringify(await clusterStatus(dir))}`);
    console.log(`DATABASE_URL=${url}`);
  } else if (command === 'status') console.log(JSON.stringify(await clusterStatus(dir)));
  else if (command === 'switchover') console.log(await switchover(dir));
  else if (command === 'down') await clusterDown(dir);
  else await clusterDestroy(dir);
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
