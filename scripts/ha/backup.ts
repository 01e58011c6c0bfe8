/**
 * Backups of the HA cluster (scripts/ha/cluster.ts) with pgBackRest, and their restore to a
 * point in time, for `npm run ha -- backup | restore` and the restore drill
 * (test/ha/restore.ha.ts).
 *
 * The repository is `DIR/backup`. Both nodes archive every WAL segment into it while they are
 * primary (`archive_command`, cluster.ts; `archive_timeout` 10 s, so a quiet primary's last
 * writes reach it within 10 s); a base backup is taken from whichever node is primary
 * (pgBackRest asks both). Restoring replays the archive from the latest backup taken before the
 * target up to the target time, then promotes: the copy holds exactly the transactions committed
 * before the target.
 *
 * A restored copy is a standalone PostgreSQL 15 (not under Patroni) in a folder of its own, on
 * its own port, which neither archives into the repository nor waits for a standby.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { alive, chownToPostgres, DATABASE, pgbackrest, until } from './cluster.js';
import pg from 'pg';

const PG_BIN = process.env.HA_PG || '/usr/lib/postgresql/15/bin';
const asRoot = process.getuid?.() === 0;

/** Takes a base backup (`full`, or `incr`: the changes since the last one) from the primary; returns pgBackRest's label of it. */
export function backup(dir: string, type: 'full' | 'incr' = 'full'): string {
  pgbackrest(dir, ['backup', `--type=${type}`]);
  const info = JSON.parse(pgbackrest(dir, ['info', '--output=json'])) as { backup: { label: string }[] }[];
  return info[0].backup.at(-1)!.label;
}

/**
 * Waits until every WAL segment up to now is in the archive: switches to a new segment and
 * lets pgBackRest's `check` wait for the previous one (a restore to a time just before now
 * needs the records after it).
 */
export function archiveNow(dir: string): void {
  pgbackrest(dir, ['check']);
}

/** Runs pg_ctl on `dataDir`, as `postgres` when root. */
function pgCtl(args: string[]): void {
  const command = asRoot ? 'setpriv' : path.join(PG_BIN, 'pg_ctl');
  const argv = asRoot ? ['--reuid=postgres', '--regid=postgres', '--init-groups', path.join(PG_BIN, 'pg_ctl'), ...args] : args;
  const run = spawnSync(command, argv, { encoding: 'utf8', cwd: '/tmp' });
  if (run.status !== 0) throw new Error(`pg_ctl ${args.join(' ')} failed: ${(run.stderr || run.stdout).trim()}`);
}

/**
 * Restores the cluster's backups into the folder `into` (emptied first) up to `target`: a
 * timestamp PostgreSQL reads (ISO 8601 with a zone), which must lie before the archive's last
 * commit (PostgreSQL refuses a recovery that ends before its target), or `latest`, the end of
 * the archive. Starts it on `port` and waits until it has replayed to the target and been
 * promoted. Resolves with its connection string; throws with the copy's last log lines when
 * its PostgreSQL stops.
 */
export async function restoreTo(dir: string, target: string, into: string, port: number): Promise<string> {
  if (existsSync(into)) rmSync(into, { recursive: true, force: true });
  mkdirSync(into, { recursive: true, mode: 0o700 });
  chownToPostgres(into);
  const to = target === 'latest' ? ['--type=default'] : ['--type=time', `--target=${target}`, '--target-action=promote'];
  pgbackrest(dir, ['restore', `--pg1-path=${into}`, ...to]);
  const settings = {
    port: String(port),
    listen_addresses: '127.0.0.1',
    unix_socket_directories: into,
    hba_file: path.join(into, 'pg_hba.conf'),
    ident_file: path.join(into, 'pg_ident.conf'),
    cluster_name: 'wallet-restored',
    // A copy: it archives nothing into the cluster's repository and waits for no standby.
    archive_mode: 'off',
    synchronous_standby_names: '',
  };
  const options = Object.entries(settings).map(([name, value]) => `-c ${name}=${value === '' ? "''" : value}`).join(' ');
  pgCtl(['start', '-w', '-t', '120', '-D', into, '-l', path.join(into, 'restore.log'), '-o', options]);
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/${DATABASE}`;
  const pid = Number(readFileSync(path.join(into, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let stopped = false;
  await until(async () => {
    if (!alive(pid)) stopped = true;
    if (stopped) return true;
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return (await client.query('SELECT pg_is_in_recovery() AS recovering')).rows[0].recovering === false;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }, 120_000, `the restored copy in ${into} to be promoted`);
  if (stopped) throw new Error(`the restored copy stopped:\n${lastLogLines(into)}`);
  return url;
}

/** The last lines of the newest log of the PostgreSQL in `dataDir` (its logging collector writes `log/`). */
function lastLogLines(dataDir: string): string {
  const logs = path.join(dataDir, 'log');
  const newest = existsSync(logs) ? readdirSync(logs).sort().at(-1) : undefined;
  return newest ? readFileSync(path.join(logs, newest), 'utf8').trim().split('\n').slice(-5).join('\n') : '';
}

/** Stops a restored copy started by restoreTo and deletes its folder. */
export async function dropRestored(into: string): Promise<void> {
  const pidFile = path.join(into, 'postmaster.pid');
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    if (alive(pid)) {
      process.kill(pid, 'SIGINT');
      await until(() => !alive(pid), 60_000, 'the restored copy to stop');
    }
  }
  rmSync(into, { recursive: true, force: true });
}
