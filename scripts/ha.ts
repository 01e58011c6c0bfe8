/**
 * `npm run ha -- up|status|switchover|backup|restore|down|destroy DIR …`: a highly available
 * PostgreSQL 15 on this machine (scripts/ha/cluster.ts): etcd, two nodes under Patroni in
 * synchronous mode, HAProxy's read-write port on the leader; backups with pgBackRest
 * (scripts/ha/backup.ts).
 *
 *   up          installs the Debian packages when missing (scripts/ha/install.sh), makes the
 *               cluster in DIR once, starts what is not running, waits for a primary behind
 *               HAProxy and a synchronous standby; its last line is `DATABASE_URL=…`.
 *   status      one JSON line: {leader: {name, port, pid}, replicas: [{name, role, state, lag}], primary_port}.
 *   switchover  hands the leadership to the synchronous standby (planned), waits until the
 *               old leader streams from the new one; prints the new leader's name.
 *   backup      a base backup from the primary into DIR/backup (`backup DIR incr`: the changes
 *               since the last one); prints its label. The WAL is archived continuously.
 *   restore     `restore DIR TARGET INTO PORT`: the backups replayed to the time TARGET (e.g.
 *               `2026-12-07 08:41:27+00`) into the new folder INTO, started on PORT as a
 *               standalone PostgreSQL; its last line is `DATABASE_URL=…`.
 *   down        stops HAProxy, Patroni with its PostgreSQL, etcd; the data stays (`up` starts them again).
 *   destroy     stops everything and deletes DIR.
 *
 * Needs root for the install; run as root, PostgreSQL runs as the `postgres` user.
 */
import path from 'node:path';
import { backup, restoreTo } from './ha/backup.js';
import { clusterDestroy, clusterDown, clusterStatus, clusterUp, switchover } from './ha/cluster.js';

const [command, dir, ...rest] = process.argv.slice(2);
const usage = 'usage: npm run ha -- up|status|switchover|down|destroy DIR | backup DIR [full|incr] | restore DIR TARGET INTO PORT';
if (!dir || !['up', 'status', 'switchover', 'backup', 'restore', 'down', 'destroy'].includes(command) || (command === 'restore' && rest.length !== 3)) {
  console.error(usage);
  process.exit(2);
}
try {
  if (command === 'up') {
    const url = await clusterUp(dir);
    console.error(`HA cluster up in ${dir}: ${JSON.stringify(await clusterStatus(dir))}`);
    console.log(`DATABASE_URL=${url}`);
  } else if (command === 'status') console.log(JSON.stringify(await clusterStatus(dir)));
  else if (command === 'switchover') console.log(await switchover(dir));
  else if (command === 'backup') console.log(backup(path.resolve(dir), rest[0] === 'incr' ? 'incr' : 'full'));
  else if (command === 'restore') console.log(`DATABASE_URL=${await restoreTo(path.resolve(dir), rest[0], path.resolve(rest[1]), Number(rest[2]))}`);
  else if (command === 'down') await clusterDown(dir);
  else await clusterDestroy(dir);
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
