/**
 * PostgreSQL 15 nodes on this machine, for the Citus cluster of `npm run citus`
 * (scripts/citus.ts), the Citus suite (scripts/citus-suite.ts) and the Citus bench
 * (scripts/bench/citus.ts): a coordinator and two workers registered the official way
 * (`citus_set_coordinator_host`, `citus_add_node`), or one plain PostgreSQL 15 with the
 * same settings, to compare with.
 *
 * PostgreSQL refuses to run as root: run as root, the nodes run as the `postgres` user
 * (Debian's package creates it), and the data folder is handed to that user. The nodes
 * trust connections from loopback: these are one machine's test databases.
 *
 * Every node preloads pg_stat_statements. Every Citus node's postgresql.conf gets what Citus needs (scripts/citus/README.md):
 * `shared_preload_libraries = 'citus'`, `max_prepared_transactions` for two-phase commits
 * across nodes, `wal_level = logical` and `output_plugin_libraries = 'citus, pgoutput'` for
 * moving shards while writes go on. All nodes skip flushing (fsync off): they hold tests'
 * data, and their speed is then the code's, not the disk's.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.join(import.meta.dirname, '../..');
const PG = process.env.CITUS_PG || '/usr/lib/postgresql/15/bin';
const INSTALL = process.env.CITUS_INSTALL || path.join(ROOT, 'scripts/citus/install.sh');
const DATABASE = 'wallet';
const HOST = '127.0.0.1';

/** Where a set of nodes lives: their data folder (one subfolder each) and the first node's port (the others take the next ones). */
export interface Nodes {
  dir: string;
  port: number;
}

interface Node {
  name: string;
  port: number;
}

/** A cluster's nodes: the coordinator first. */
export function clusterNodes({ port }: Nodes): Node[] {
  return [
    { name: 'coordinator', port },
    { name: 'worker-1', port: port + 1 },
    { name: 'worker-2', port: port + 2 },
  ];
}

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
export function sql(port: number, command: string, database = DATABASE): string {
  return pg('psql', ['-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-h', HOST, '-p', String(port), '-U', 'postgres', '-d', database, '-c', command]).trim();
}

/** The connection string of the database on the node at `port` (a cluster's coordinator). */
export function databaseUrl(port: number): string {
  return `postgres://postgres@${HOST}:${port}/${DATABASE}`;
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

/** Runs install.sh, which returns at once when this build of Citus is installed and otherwise builds it (a stock Citus included). */
function ensureInstalled(): void {
  execFileSync('bash', [INSTALL], { stdio: ['ignore', process.stderr, 'inherit'] });
}

/** Creates (once) and starts the node `node` in `dir`, with Citus or without; creates its database. */
function startNode(dir: string, node: Node, citus: boolean): void {
  const dataDir = path.join(dir, node.name);
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    prepareDataDir(dataDir);
    pg('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
    const settings = [
      `port = ${node.port}`,
      `listen_addresses = '${HOST}'`,
      `unix_socket_directories = '${dataDir}'`,
      // pg_stat_statements: where a statement's time goes, for the Citus bench.
      citus ? "shared_preload_libraries = 'citus, pg_stat_statements'" : "shared_preload_libraries = 'pg_stat_statements'",
      ...(citus ? ['max_prepared_transactions = 200', 'wal_level = logical', "output_plugin_libraries = 'citus, pgoutput'"] : []),
      'max_connections = 300',
      'fsync = off',
      'synchronous_commit = off',
      'full_page_writes = off',
      "log_min_messages = 'warning'",
      '',
    ];
    writeFileSync(path.join(dataDir, 'postgresql.auto.conf'), settings.join('\n'));
    if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', dataDir]);
  }
  if (!running(dataDir)) {
    try {
      pg('pg_ctl', ['start', '-w', '-t', '60', '-D', dataDir, '-l', path.join(dataDir, 'server.log')]);
    } catch (err) {
      // The node's own words (a port in use, a bad setting), which its log holds and pg_ctl does not say.
      const log = existsSync(path.join(dataDir, 'server.log')) ? readFileSync(path.join(dataDir, 'server.log'), 'utf8').trim().split('\n').slice(-5).join('\n') : '';
      throw new Error(`${(err as Error).message}\n${log}`);
    }
  }
  if (!sql(node.port, `SELECT 1 FROM pg_database WHERE datname = '${DATABASE}'`, 'postgres')) sql(node.port, `CREATE DATABASE ${DATABASE}`, 'postgres');
  if (citus) sql(node.port, 'CREATE EXTENSION IF NOT EXISTS citus');
}

/**
 * Installs Citus when missing, creates (once) and starts a coordinator and two workers in
 * `nodes`, registers them, and returns the coordinator's connection string. Starting a
 * cluster that is up changes nothing.
 */
export function clusterUp(nodes: Nodes): string {
  ensureInstalled();
  const [coordinator, ...workers] = clusterNodes(nodes);
  for (const node of [coordinator, ...workers]) startNode(nodes.dir, node, true);
  sql(coordinator.port, `SELECT citus_set_coordinator_host('${HOST}', ${coordinator.port})`);
  for (const worker of workers) {
    const known = sql(coordinator.port, `SELECT 1 FROM pg_dist_node WHERE nodename = '${HOST}' AND nodeport = ${worker.port}`);
    if (!known) sql(coordinator.port, `SELECT citus_add_node('${HOST}', ${worker.port})`);
  }
  return databaseUrl(coordinator.port);
}

/** Creates (once) and starts one PostgreSQL 15 without Citus in `nodes` (folder `single`); returns its connection string. */
export function singleUp(nodes: Nodes): string {
  startNode(nodes.dir, { name: 'single', port: nodes.port }, false);
  return databaseUrl(nodes.port);
}

/** The data folders of the nodes in `nodes.dir`, as they exist. */
export function dataDirs(nodes: Nodes): string[] {
  return existsSync(nodes.dir) ? readdirSync(nodes.dir).map((name) => path.join(nodes.dir, name)).filter((d) => existsSync(path.join(d, 'PG_VERSION'))) : [];
}

/** Stops every node in `nodes.dir` (their data stays). */
export function nodesDown(nodes: Nodes): void {
  for (const dataDir of dataDirs(nodes).reverse()) if (running(dataDir)) pg('pg_ctl', ['stop', '-w', '-m', 'fast', '-D', dataDir]);
}

/** Stops every node in `nodes.dir` and deletes their data. */
export function nodesDestroy(nodes: Nodes): void {
  nodesDown(nodes);
  if (existsSync(nodes.dir)) for (const name of readdirSync(nodes.dir)) rmSync(path.join(nodes.dir, name), { recursive: true, force: true });
}

/** Each cluster node's name, address and state. */
export function clusterStatus(nodes: Nodes): string[] {
  return clusterNodes(nodes).map((node) => {
    const dataDir = path.join(nodes.dir, node.name);
    return `${node.name}\t${HOST}:${node.port}\t${existsSync(dataDir) ? (running(dataDir) ? 'running' : 'stopped') : 'absent'}`;
  });
}

/**
 * Runs `npm start` on `url` until it logs that it listens, then stops it (SIGTERM,
 * graceful): the database migrated and its SQL definitions applied, as an operator's
 * first start leaves it. Throws when it does not listen within 180 s.
 */
export async function migrateByStart(url: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  // A process group of its own: npm's child (the service) is stopped with it.
  const child = spawn('npm', ['start'], { cwd: ROOT, env: { ...env, DATABASE_URL: url, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`npm start did not listen within 180 s:\n${out.slice(-2000)}`)), 180_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('wallet service listening')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => reject(new Error(`npm start exited ${code}:\n${out.slice(-2000)}`)));
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  process.kill(-child.pid!, 'SIGTERM');
  await exited;
}

/** `npm run db:distribute` on `url` (scripts/distribute.ts); throws when it fails. */
export function distribute(url: string, env: NodeJS.ProcessEnv = process.env): void {
  const result = spawnSync('npx', ['tsx', 'scripts/distribute.ts'], { cwd: ROOT, env: { ...env, DATABASE_URL: url }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (result.status !== 0) throw new Error(`npm run db:distribute exited ${result.status}`);
}
