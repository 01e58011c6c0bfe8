/**
 * `npm run citus -- up|down|status|url`: a Citus cluster on this machine for trying the
 * service distributed (docs/scale-out.md) and for the Citus suite (test/citus/).
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
 *
 * PostgreSQL refuses to run as root: run as root, the nodes run as the `postgres` user
 * (Debian's package creates it), and the data folder is handed to that user. The nodes
 * trust connections from loopback: this is a cluster for one machine's tests.
 *
 * Every node's postgresql.conf gets what Citus needs (the install script's notes):
 * `shared_preload_libraries = 'citus'`, `max_prepared_transactions` for two-phase commits
 * across nodes, `wal_level = logical` and `output_plugin_libraries = 'citus, pgoutput'` for moving
 * shards while writes go on.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(import.meta.dirname, '..');
const DIR = path.resolve(process.env.CITUS_DIR || path.join(ROOT, '.data/citus'));
const BASE_PORT = Number(process.env.CITUS_PORT || 9700);
const PG = process.env.CITUS_PG || '/usr/lib/postgresql/15/bin';
const INSTALL = process.env.CITUS_INSTALL || path.join(ROOT, 'scripts/citus/install.sh');
const DATABASE = 'wallet';
const HOST = '127.0.0.1';

/** The three nodes: the coordinator first. */
const NODES = [
  { name: 'coordinator', port: BASE_PORT },
  { name: 'worker-1', port: BASE_PORT + 1 },
  { name: 'worker-2', port: BASE_PORT + 2 },
];

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL binary, as `postgres` when this process is root. Returns its stdout. */
function pg(binary: string, args: string[], options: { allowFail?: boolean } = {}): string {
  const command = asRoot ? 'runuser' : path.join(PG, binary);
  const argv = asRoot ? ['-u', 'postgres', '--', path.join(PG, binary), ...args] : args;
  const run = spawnSync(command, argv, { encoding: 'utf8', cwd: '/tmp' });
  if (run.status !== 0 && !options.allowFail) {
    throw new Error(`${binary} ${args.join(' ')} failed: ${(run.stderr || run.stdout || '').trim()}`);
  }
  return run.stdout ?? '';
}

/** One SQL command on a node's database, through psql; returns its unaligned output. */
function sql(port: number, command: string, database = DATABASE): string {
  return pg('psql', ['-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-h', HOST, '-p', String(port), '-U', 'postgres', '-d', database, '-c', command]).trim();
}

/** The coordinator's connection string. */
export function databaseUrl(): string {
  return `postgres://postgres@${HOST}:${BASE_PORT}/${DATABASE}`;
}

function running(dataDir: string): boolean {
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) return false;
  return spawnSync(asRoot ? 'runuser' : path.join(PG, 'pg_ctl'), asRoot ? ['-u', 'postgres', '--', path.join(PG, 'pg_ctl'), 'status', '-D', dataDir] : ['status', '-D', dataDir], { cwd: '/tmp' }).status === 0;
}

/** Makes the folders of the path to `dir` readable by the `postgres` user, and `dir` its own. */
function prepareDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  if (!asRoot) return;
  for (let up = path.dirname(dir); up !== path.dirname(up); up = path.dirname(up)) {
    const mode = statSync(up).mode;
    if ((mode & 0o001) === 0) chmodSync(up, mode | 0o001);
  }
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
  chownSync(dir, uid, gid);
}

function ensureInstalled(): void {
  if (existsSync(path.join(PG, 'postgres')) && existsSync(path.join(PG, '..', 'lib', 'citus.so'))) return;
  console.error(`Citus is not installed for ${PG}: running ${path.relative(ROOT, INSTALL)} (a few minutes, once)`);
  execFileSync('bash', [INSTALL], { stdio: 'inherit' });
}

function up(): void {
  ensureInstalled();
  for (const node of NODES) {
    const dataDir = path.join(DIR, node.name);
    if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
      prepareDataDir(dataDir);
      pg('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
      writeFileSync(
        path.join(dataDir, 'postgresql.auto.conf'),
        [
          `port = ${node.port}`,
          `listen_addresses = '${HOST}'`,
          `unix_socket_directories = '${dataDir}'`,
          "shared_preload_libraries = 'citus'",
          'max_prepared_transactions = 200',
          'wal_level = logical',
          "output_plugin_libraries = 'citus, pgoutput'",
          'max_connections = 300',
          'fsync = off',
          'synchronous_commit = off',
          'full_page_writes = off',
          "log_min_messages = 'warning'",
          '',
        ].join('\n'),
      );
      if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', dataDir]);
    }
    if (!running(dataDir)) pg('pg_ctl', ['start', '-w', '-t', '60', '-D', dataDir, '-l', path.join(dataDir, 'server.log')]);
  }
  for (const node of NODES) {
    if (!sql(node.port, `SELECT 1 FROM pg_database WHERE datname = '${DATABASE}'`, 'postgres')) sql(node.port, `CREATE DATABASE ${DATABASE}`, 'postgres');
    sql(node.port, 'CREATE EXTENSION IF NOT EXISTS citus');
  }
  const [coordinator, ...workers] = NODES;
  sql(coordinator.port, `SELECT citus_set_coordinator_host('${HOST}', ${coordinator.port})`);
  for (const worker of workers) {
    const known = sql(coordinator.port, `SELECT 1 FROM pg_dist_node WHERE nodename = '${HOST}' AND nodeport = ${worker.port}`);
    if (!known) sql(coordinator.port, `SELECT citus_add_node('${HOST}', ${worker.port})`);
  }
  console.error(`Citus cluster up: coordinator ${HOST}:${coordinator.port}, workers ${workers.map((w) => w.port).join(', ')} (data in ${DIR})`);
  console.log(`DATABASE_URL=${databaseUrl()}`);
}

function down(): void {
  for (const node of [...NODES].reverse()) {
    const dataDir = path.join(DIR, node.name);
    if (running(dataDir)) pg('pg_ctl', ['stop', '-w', '-m', 'fast', '-D', dataDir]);
  }
}

function status(): void {
  for (const node of NODES) {
    const dataDir = path.join(DIR, node.name);
    console.log(`${node.name}\t${HOST}:${node.port}\t${existsSync(dataDir) ? (running(dataDir) ? 'running' : 'stopped') : 'absent'}`);
  }
}

const command = process.argv[2];
if (command === 'up') up();
else if (command === 'down') down();
else if (command === 'destroy') {
  down();
  if (existsSync(DIR)) for (const name of readdirSync(DIR)) rmSync(path.join(DIR, name), { recursive: true, force: true });
} else if (command === 'status') status();
else if (command === 'url') console.log(databaseUrl());
else {
  console.error('usage: npm run citus -- up|down|destroy|status|url');
  process.exit(2);
}
