/**
 * A highly available PostgreSQL 15 on this machine, for `npm run ha` (scripts/ha.ts) and the
 * failover drill (scripts/ha-suite.ts): one etcd member (the store that holds Patroni's leader
 * lock), two PostgreSQL nodes under Patroni in synchronous mode, and HAProxy, whose read-write
 * port leads to whichever node Patroni's REST API calls the primary (`GET /primary` answers
 * 200 on the leader only). The service's DATABASE_URL names HAProxy's port.
 *
 * Everything lives in one folder (`dir`): `cluster.json` (ports and process ids), `etcd/`,
 * `node1/` and `node2/` (each a Patroni configuration, its log and the PostgreSQL data folder
 * `data/`), `haproxy.cfg`, `backup/` (the pgBackRest repository, WAL archive included,
 * scripts/ha/backup.ts). Ports are drawn free on loopback when the cluster is first made.
 * Run as root, Patroni and PostgreSQL run as the `postgres` user (PostgreSQL refuses root),
 * which then owns the folder; etcd and HAProxy run as the caller.
 *
 * The drill's timings (DCS_TIMINGS) decide a failover in seconds, not Patroni's defaults'
 * 30: Patroni's loop runs every second, the leader lock lives 8 s without renewal (a node
 * whose Patroni dies with it loses the lock 8 s later), and a primary whose postmaster dies
 * is not restarted in place but failed over at once (`primary_start_timeout: 0`; synchronous
 * mode guarantees the standby has every acknowledged commit). HAProxy checks each node every
 * 500 ms and cuts the sessions of one marked down, so that no client keeps talking to a
 * former primary. The old primary rejoins as a replica through `pg_rewind`.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/db/embedded.js';

export const ROOT = path.join(import.meta.dirname, '../..');
const PG_BIN = process.env.HA_PG || '/usr/lib/postgresql/15/bin';
const INSTALL = path.join(ROOT, 'scripts/ha/install.sh');
const HOST = '127.0.0.1';
export const DATABASE = 'wallet';
/** Patroni's cluster name (its `scope`): the etcd keys live under /service/<scope>/. */
const SCOPE = 'wallet-ha';
/** The two PostgreSQL nodes' names. */
const NODE_NAMES = ['node1', 'node2'] as const;

/**
 * Patroni's timings for the drill (seconds): Patroni's rule loop_wait + 2 × retry_timeout ≤ ttl
 * holds. `primary_start_timeout: 0`: a primary whose PostgreSQL crashed is failed over at once.
 */
const DCS_TIMINGS = { ttl: 8, loop_wait: 1, retry_timeout: 3, primary_start_timeout: 0 } as const;

/** The ports of a cluster, drawn once and kept in cluster.json. */
export interface Ports {
  etcdClient: number;
  etcdPeer: number;
  /** HAProxy's read-write port: the primary's PostgreSQL. */
  primary: number;
  nodes: Record<string, { postgres: number; rest: number }>;
}

/** What cluster.json holds: the ports and the process ids of the running parts. */
interface State {
  ports: Ports;
  pids: Record<string, number>;
}

/** A node as Patroni's `GET /cluster` describes it. */
export interface Member {
  name: string;
  role: 'leader' | 'sync_standby' | 'replica' | string;
  state: string;
  port: number;
  lag?: number | string;
  timeline?: number;
}

/** `npm run ha -- status`: the leader and the replicas. */
export interface ClusterStatus {
  leader: { name: string; port: number; pid: number | null } | null;
  replicas: { name: string; role: string; state: string; lag: number | string | null }[];
  primary_port: number;
}

const asRoot = process.getuid?.() === 0;
const ids = (): { uid: number; gid: number } | null =>
  asRoot ? { uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })) } : null;

const statePath = (dir: string) => path.join(dir, 'cluster.json');

/** The cluster's state in `dir`, or null when none was made there. */
export function readState(dir: string): State | null {
  return existsSync(statePath(dir)) ? (JSON.parse(readFileSync(statePath(dir), 'utf8')) as State) : null;
}

function writeState(dir: string, state: State): void {
  writeFileSync(statePath(dir), `${JSON.stringify(state, null, 2)}\n`);
}

/** True when process `pid` exists (and is not a zombie). */
export function alive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  return !/^\d+ \(.*\) Z/.test(stat);
}

/** The connection string through HAProxy's read-write port (the service's DATABASE_URL). */
export function databaseUrl(ports: Ports, database = DATABASE): string {
  return `postgres://postgres:postgres@${HOST}:${ports.primary}/${database}`;
}

function ensureInstalled(): void {
  const have = (bin: string) => spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0;
  if (existsSync(path.join(PG_BIN, 'postgres')) && ['patroni', 'etcd', 'haproxy', 'pgbackrest'].every(have)) return;
  console.error(`Patroni, etcd, HAProxy or pgBackRest is missing: running ${path.relative(ROOT, INSTALL)} (a minute, once)`);
  execFileSync('bash', [INSTALL], { stdio: 'inherit' });
}

/** Makes every folder above `dir` traversable (o+x) so that the `postgres` user reaches it. */
function traversable(dir: string): void {
  for (let up = dir; up !== path.dirname(up); up = path.dirname(up)) {
    if (!existsSync(up)) continue;
    const mode = statSync(up).mode;
    if ((mode & 0o001) === 0) chmodSync(up, mode | 0o001);
  }
}

/** Hands `target` (recursively) to the `postgres` user when running as root. */
function giveToPostgres(target: string): void {
  const owner = ids();
  if (!owner) return;
  execFileSync('chown', ['-R', `${owner.uid}:${owner.gid}`, target]);
}

/**
 * Starts `command` detached (it outlives this process), its output appended to `log`; as the
 * `postgres` user when `asPostgres` and running as root. Returns its pid.
 */
function launch(command: string, args: string[], log: string, asPostgres: boolean): number {
  const out = openSync(log, 'a');
  const owner = asPostgres ? ids() : null;
  const child = spawn(command, args, {
    cwd: path.dirname(log),
    detached: true,
    stdio: ['ignore', out, out],
    ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
    env: { ...process.env, ...(owner ? { HOME: path.dirname(log), USER: 'postgres' } : {}) },
  });
  child.unref();
  closeSync(out);
  if (!child.pid) throw new Error(`${command} did not start`);
  return child.pid;
}

/** Waits until `check()` resolves true (polled every 250 ms; a check that throws counts as false); throws `what` after `ms`. */
export async function until(check: () => Promise<boolean> | boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await Promise.resolve(check()).catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Patroni's configuration of node `name` (YAML is JSON's superset: written as JSON). */
function patroniConfig(dir: string, name: string, ports: Ports): object {
  const node = ports.nodes[name];
  const nodeDir = path.join(dir, name);
  return {
    scope: SCOPE,
    name,
    log: { level: 'INFO' },
    restapi: { listen: `${HOST}:${node.rest}`, connect_address: `${HOST}:${node.rest}` },
    etcd3: { hosts: [`${HOST}:${ports.etcdClient}`], protocol: 'http' },
    bootstrap: {
      dcs: {
        ...DCS_TIMINGS,
        maximum_lag_on_failover: 1048576,
        synchronous_mode: true,
        postgresql: {
          use_pg_rewind: true,
          use_slots: true,
          parameters: {
            wal_level: 'replica',
            hot_standby: 'on',
            wal_log_hints: 'on',
            max_wal_senders: 10,
            max_replication_slots: 10,
            max_connections: 300,
            wal_keep_size: '256MB',
            archive_mode: 'on',
            // The WAL archive of the pgBackRest repository (scripts/ha/backup.ts); a segment
            // is archived by whichever node is primary. The command runs in the node's data
            // folder, which pgBackRest wants named as its pg1-path.
            archive_command: `pgbackrest --config=${path.join(dir, 'pgbackrest.conf')} --stanza=${SCOPE} --pg1-path="$(pwd)" archive-push %p`,
            archive_timeout: '10s',
          },
        },
      },
      initdb: [{ encoding: 'UTF8' }, { locale: 'C.UTF-8' }, 'data-checksums'],
    },
    postgresql: {
      listen: `${HOST}:${node.postgres}`,
      connect_address: `${HOST}:${node.postgres}`,
      data_dir: path.join(nodeDir, 'data'),
      bin_dir: PG_BIN,
      pgpass: path.join(nodeDir, 'pgpass'),
      authentication: {
        superuser: { username: 'postgres', password: 'postgres' },
        replication: { username: 'replicator', password: 'replicator' },
      },
      parameters: { unix_socket_directories: nodeDir, logging_collector: 'on', log_min_messages: 'warning' },
      // Loopback only: the drill's cluster trusts its own machine.
      pg_hba: ['local all all trust', `host replication replicator ${HOST}/32 trust`, `host all all ${HOST}/32 trust`],
    },
    tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
  };
}

/** HAProxy's configuration: the read-write port leads to the node whose Patroni answers `GET /primary` with 200. */
function haproxyConfig(ports: Ports): string {
  const servers = NODE_NAMES.map((name) => `    server ${name} ${HOST}:${ports.nodes[name].postgres} maxconn 500 check port ${ports.nodes[name].rest}`);
  return [
    'global',
    '    maxconn 2000',
    'defaults',
    '    mode tcp',
    '    retries 2',
    '    timeout connect 1s',
    '    timeout client 30m',
    '    timeout server 30m',
    '    timeout check 1s',
    'listen primary',
    `    bind ${HOST}:${ports.primary}`,
    '    option httpchk GET /primary',
    '    http-check expect status 200',
    // Checked every 500 ms; two failed checks mark a node down and cut its sessions, one good check brings it back.
    '    default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions',
    ...servers,
    '',
  ].join('\n');
}

/** Patroni's view of the cluster (`GET /cluster` of any node that answers), or null. */
export async function members(ports: Ports): Promise<Member[] | null> {
  for (const name of NODE_NAMES) {
    try {
      const res = await fetch(`http://${HOST}:${ports.nodes[name].rest}/cluster`, { signal: AbortSignal.timeout(1500) });
      if (res.ok) return ((await res.json()) as { members: Member[] }).members;
    } catch {
      // that node's Patroni is down: ask the other
    }
  }
  return null;
}

/** The postmaster pid of node `name` (its postmaster.pid), or null when it is not running. */
function postmasterPid(dir: string, name: string): number | null {
  const file = path.join(dir, name, 'data', 'postmaster.pid');
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return alive(pid) ? pid : null;
}

/** The leader and the replicas with their state and lag (`npm run ha -- status`). */
export async function clusterStatus(dir: string): Promise<ClusterStatus> {
  const state = readState(dir);
  if (!state) throw new Error(`no cluster in ${dir}`);
  const list = (await members(state.ports)) ?? [];
  const leader = list.find((m) => m.role === 'leader' && m.state === 'running');
  return {
    leader: leader ? { name: leader.name, port: leader.port, pid: postmasterPid(dir, leader.name) } : null,
    replicas: list.filter((m) => m !== leader).map((m) => ({ name: m.name, role: m.role, state: m.state, lag: m.lag ?? null })),
    primary_port: state.ports.primary,
  };
}

/** True when the read-write port reaches a PostgreSQL that accepts writes. */
export async function writable(ports: Ports, database = 'postgres'): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl(ports, database), connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query('SELECT pg_is_in_recovery() AS replica');
    return rows[0].replica === false;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * True when the cluster is whole: a leader, and the other node a synchronous standby that
 * streams (a failover then loses nothing and may be decided).
 */
export async function healthy(ports: Ports): Promise<boolean> {
  const list = await members(ports);
  if (!list || list.length !== NODE_NAMES.length) return false;
  // Patroni 3.0 calls a streaming standby `running`; later versions `streaming`. A lag is known once it streams.
  return list.some((m) => m.role === 'leader' && m.state === 'running') && list.some((m) => m.role === 'sync_standby' && ['running', 'streaming'].includes(m.state) && typeof m.lag === 'number');
}

/** Starts what of the cluster is not running: etcd, the two Patronis, HAProxy. */
function startParts(dir: string, state: State): void {
  const { ports, pids } = state;
  if (!alive(pids.etcd)) {
    pids.etcd = launch(
      'etcd',
      [
        '--name', 'etcd1',
        '--data-dir', path.join(dir, 'etcd', 'data'),
        '--listen-client-urls', `http://${HOST}:${ports.etcdClient}`,
        '--advertise-client-urls', `http://${HOST}:${ports.etcdClient}`,
        '--listen-peer-urls', `http://${HOST}:${ports.etcdPeer}`,
        '--initial-advertise-peer-urls', `http://${HOST}:${ports.etcdPeer}`,
        '--initial-cluster', `etcd1=http://${HOST}:${ports.etcdPeer}`,
        '--log-level', 'warn',
      ],
      path.join(dir, 'etcd', 'etcd.log'),
      false,
    );
  }
  for (const name of NODE_NAMES) startPatroni(dir, state, name);
  if (!alive(pids.haproxy)) pids.haproxy = launch('haproxy', ['-db', '-f', path.join(dir, 'haproxy.cfg')], path.join(dir, 'haproxy.log'), false);
  writeState(dir, state);
}

/** Starts node `name`'s Patroni when it is not running (it starts and manages its PostgreSQL). */
function startPatroni(dir: string, state: State, name: string): void {
  if (alive(state.pids[name])) return;
  state.pids[name] = launch('patroni', [path.join(dir, name, 'patroni.yml')], path.join(dir, name, 'patroni.log'), true);
  writeState(dir, state);
}

/**
 * Makes (once) and starts the cluster in `dir`; resolves with the service's DATABASE_URL once
 * the leader accepts writes through HAProxy, the standby streams synchronously and the
 * database `wallet` exists. A cluster that is up is left as it is.
 */
export async function clusterUp(dir: string): Promise<string> {
  ensureInstalled();
  dir = path.resolve(dir);
  mkdirSync(dir, { recursive: true });
  let state = readState(dir);
  if (!state) {
    const nodes: Ports['nodes'] = {};
    for (const name of NODE_NAMES) nodes[name] = { postgres: await freePort(), rest: await freePort() };
    state = { ports: { etcdClient: await freePort(), etcdPeer: await freePort(), primary: await freePort(), nodes }, pids: {} };
    chmodSync(dir, 0o755);
    traversable(dir);
    mkdirSync(path.join(dir, 'etcd'), { recursive: true });
    mkdirSync(path.join(dir, 'backup'), { recursive: true });
    for (const name of NODE_NAMES) {
      mkdirSync(path.join(dir, name), { recursive: true, mode: 0o700 });
      writeFileSync(path.join(dir, name, 'patroni.yml'), `${JSON.stringify(patroniConfig(dir, name, state.ports), null, 2)}\n`);
    }
    writeFileSync(path.join(dir, 'haproxy.cfg'), haproxyConfig(state.ports));
    writeFileSync(path.join(dir, 'pgbackrest.conf'), pgbackrestConfig(dir, state.ports));
    for (const name of [...NODE_NAMES, 'backup', 'pgbackrest.conf']) giveToPostgres(path.join(dir, name));
    writeState(dir, state);
  }
  startParts(dir, state);
  const ports = state.ports;
  await until(() => writable(ports), 120_000, `a primary behind HAProxy (logs: ${dir}/node*/patroni.log)`);
  const admin = new pg.Client({ connectionString: databaseUrl(ports, 'postgres') });
  await admin.connect();
  try {
    const { rows } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (!rows.length) await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }
  await until(() => healthy(ports), 120_000, 'the standby to stream synchronously');
  ensureStanza(dir);
  return databaseUrl(ports);
}

/** Stops HAProxy, the Patronis (each stops its PostgreSQL) and etcd, and waits for them; the data stays. */
export async function clusterDown(dir: string): Promise<void> {
  const state = readState(path.resolve(dir));
  if (!state) return;
  const stop = async (names: string[]) => {
    for (const name of names) if (alive(state.pids[name])) process.kill(state.pids[name], 'SIGTERM');
    await until(() => names.every((name) => !alive(state.pids[name])), 60_000, `${names.join(', ')} to stop`);
  };
  await stop(['haproxy']);
  await stop([...NODE_NAMES]);
  // A Patroni killed earlier (the drill) may have left its PostgreSQL running.
  for (const name of NODE_NAMES) {
    const pid = postmasterPid(dir, name);
    if (pid) process.kill(pid, 'SIGINT');
  }
  await until(() => NODE_NAMES.every((name) => !postmasterPid(dir, name)), 60_000, 'PostgreSQL to stop');
  await stop(['etcd']);
}

/** Stops the cluster and deletes `dir`. */
export async function clusterDestroy(dir: string): Promise<void> {
  await clusterDown(dir);
  rmSync(dir, { recursive: true, force: true });
}

/**
 * A planned switchover to the replica (Patroni's `POST /switchover`); resolves with the new
 * leader's name once it accepts writes through HAProxy and the old leader streams from it.
 */
export async function switchover(dir: string): Promise<string> {
  const state = readState(path.resolve(dir));
  if (!state) throw new Error(`no cluster in ${dir}`);
  const list = (await members(state.ports)) ?? [];
  const leader = list.find((m) => m.role === 'leader');
  const candidate = list.find((m) => m.role === 'sync_standby');
  if (!leader || !candidate) throw new Error(`no leader and synchronous standby to switch over: ${JSON.stringify(list)}`);
  const res = await fetch(`http://${HOST}:${state.ports.nodes[leader.name].rest}/switchover`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ leader: leader.name, candidate: candidate.name }),
  });
  if (!res.ok) throw new Error(`switchover refused: ${res.status} ${await res.text()}`);
  await until(async () => ((await members(state.ports)) ?? []).some((m) => m.name === candidate.name && m.role === 'leader' && m.state === 'running'), 60_000, `${candidate.name} to lead`);
  await until(() => healthy(state.ports), 120_000, `${leader.name} to stream from ${candidate.name}`);
  return candidate.name;
}

/** pgBackRest's configuration: one repository in `dir/backup`, both nodes local (pgBackRest finds the primary among them). */
function pgbackrestConfig(dir: string, ports: Ports): string {
  return [
    '[global]',
    `repo1-path=${path.join(dir, 'backup')}`,
    'repo1-retention-full=2',
    `log-path=${path.join(dir, 'backup')}`,
    'log-level-console=warn',
    'log-level-file=info',
    `lock-path=${path.join(dir, 'backup')}`,
    'start-fast=y',
    'archive-async=n',
    '',
    `[${SCOPE}]`,
    ...NODE_NAMES.flatMap((name, i) => [
      `pg${i + 1}-path=${path.join(dir, name, 'data')}`,
      `pg${i + 1}-port=${ports.nodes[name].postgres}`,
      `pg${i + 1}-socket-path=${path.join(dir, name)}`,
      `pg${i + 1}-user=postgres`,
    ]),
    '',
  ].join('\n');
}

/** Runs pgBackRest with the cluster's configuration, as `postgres` when root; returns its output. */
export function pgbackrest(dir: string, args: string[]): string {
  const owner = ids();
  const run = spawnSync('pgbackrest', [`--config=${path.join(dir, 'pgbackrest.conf')}`, `--stanza=${SCOPE}`, ...args], {
    encoding: 'utf8',
    cwd: '/tmp',
    ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
  });
  if (run.status !== 0) throw new Error(`pgbackrest ${args.join(' ')} failed (${run.status}): ${(run.stderr || run.stdout).trim()}`);
  return run.stdout;
}

/** Creates the pgBackRest stanza (the repository's record of this cluster) when it is missing. */
function ensureStanza(dir: string): void {
  if (existsSync(path.join(dir, 'backup', 'backup', SCOPE, 'backup.info'))) return;
  pgbackrest(dir, ['stanza-create']);
}

/** Hands the folder `target` (not what is in it) to `postgres` when root, e.g. a restore's. */
export function chownToPostgres(target: string): void {
  const owner = ids();
  if (owner) chownSync(target, owner.uid, owner.gid);
}
