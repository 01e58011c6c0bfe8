/**
 * Child processes of the benchmark: the service started exactly as `npm start`
 * starts it, and the reference server. Linux only (reads /proc for the
 * service's node process, its peak resident set size, VmHWM, and the CPU time
 * of processes).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** A spawned server: its process, its base URL and the output it has written. */
export interface Spawned {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/**
 * Spawns `command args` in the repository with extra environment. Its stdout and
 * stderr go to `logFile` when given (so that the load generator in this process
 * does not spend its time reading a busy server's log lines), else are captured.
 */
export function spawnServer(command: string, args: string[], env: Record<string, string>, port: number, logFile?: string): Spawned {
  if (logFile) {
    const fd = openSync(logFile, 'a');
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    return { child, url: `http://127.0.0.1:${port}`, output: () => readFileSync(logFile, 'utf8').slice(-20_000) };
  }
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  return { child, url: `http://127.0.0.1:${port}`, output: () => output };
}

/** Resolves once GET `url`/health answers 200 (polling every 10 ms); rejects after `timeoutMs` or if the process exits. */
export async function waitHealthy(server: Spawned, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) throw new Error(`server exited with ${server.child.exitCode}:\n${server.output()}`);
    try {
      const res = await fetch(`${server.url}/health`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no healthy /health at ${server.url} within ${timeoutMs} ms:\n${server.output()}`);
}

/** Clock ticks per second of /proc/<pid>/stat's CPU times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** Fields of /proc/`pid`/stat after the command name (state is [0], ppid [1], utime [11], stime [12]). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** pid → parent pid and command line, for every process. */
function processTable(): Map<number, { ppid: number; cmdline: string }> {
  const table = new Map<number, { ppid: number; cmdline: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(statFields(Number(entry))[1]);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      table.set(Number(entry), { ppid, cmdline });
    } catch {
      // the process ended meanwhile
    }
  }
  return table;
}

/**
 * The pid of the node process that runs the service (scripts/start.mjs, or src/main):
 * the deepest descendant of `rootPid` whose command line names it (npm and tsx
 * put their own processes above it).
 */
export function servicePid(rootPid: number): number {
  const table = processTable();
  const depthBelowRoot = (pid: number): number => {
    let depth = 0;
    for (let p = pid; p > 1; p = table.get(p)?.ppid ?? 0, depth++) if (p === rootPid) return depth;
    return -1;
  };
  let found = rootPid;
  let deepest = -1;
  for (const [pid, { cmdline }] of table) {
    if (!/src\/main\.(ts|js)|scripts\/start\.mjs/.test(cmdline)) continue;
    const depth = depthBelowRoot(pid);
    if (depth > deepest) [found, deepest] = [pid, depth];
  }
  return found;
}

/** Peak resident set size (VmHWM) of `pid`, in MiB. */
export function peakRssMiB(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/** CPU time (user + system, ms, 10 ms resolution) `pid` has used so far; 0 once it has ended. */
export function cpuMs(pid: number): number {
  try {
    const f = statFields(pid);
    return ((Number(f[11]) + Number(f[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/**
 * CPU time (ms) used so far by the PostgreSQL cluster in `pgDataDir`: its postmaster
 * (first line of postmaster.pid), every process it started that still runs (backends,
 * WAL writer, checkpointer, autovacuum workers), and those that ended, which the
 * postmaster has reaped (its children's times, cutime and cstime: fields [13] and [14]).
 */
export function postgresCpuMs(pgDataDir: string): number {
  const postmaster = Number(readFileSync(path.join(pgDataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const f = statFields(postmaster);
  let total = cpuMs(postmaster) + ((Number(f[13]) + Number(f[14])) * 1000) / TICKS_PER_SECOND;
  for (const [pid, { ppid }] of processTable()) if (ppid === postmaster) total += cpuMs(pid);
  return total;
}

/** Sends SIGTERM to `pid` and waits for `child` to exit (SIGKILL after `timeoutMs`). */
export async function stop(child: ChildProcess, pid = child.pid ?? 0, timeoutMs = 30_000): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(pid, 'SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

/** The port of the PostgreSQL cluster running in `pgDataDir` (line 4 of postmaster.pid, as PostgreSQL documents it). */
export function postgresPort(pgDataDir: string): number {
  return Number(readFileSync(path.join(pgDataDir, 'postmaster.pid'), 'utf8').split('\n')[3]);
}

/** Resident set size now (VmRSS) of `pid`, in MiB; NaN once it has ended. */
export function rssMiB(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** One phase of the bench as {@link MemoryPhases} saw it (MiB). */
export interface MemoryPhase {
  name: string;
  /** Highest VmRSS sampled during the phase. */
  maxRss: number;
  /** VmRSS when the phase ended. */
  endRss: number;
  /** VmHWM when the phase ended: the peak since the process started (monotonic). */
  hwm: number;
  /** When the phase ended (wall clock), to line it up with other observations. */
  endedAt: Date;
}

/**
 * Where a process's peak resident memory falls: samples VmRSS of `pid` every `everyMs`
 * and, at each {@link MemoryPhases.mark}, closes the phase that ends there with its highest
 * sample, its last one and VmHWM. VmHWM is the kernel's exact peak; the samples place it.
 */
export class MemoryPhases {
  readonly phases: MemoryPhase[] = [];
  private max = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    everyMs = 250,
  ) {
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  private sample(): number {
    const rss = rssMiB(this.pid);
    if (rss > this.max) this.max = rss;
    return rss;
  }

  /** Ends the phase `name` (begun at the previous mark or at construction). */
  mark(name: string): void {
    const endRss = this.sample();
    this.phases.push({ name, maxRss: this.max, endRss, hwm: peakRssMiB(this.pid), endedAt: new Date() });
    this.max = endRss;
  }

  /** Stops sampling. */
  stop(): void {
    clearInterval(this.timer);
  }
}

/** The private memory of a PostgreSQL node's client backends (MiB): their sum, the largest, and how many. */
export interface BackendMemory {
  totalMiB: number;
  maxMiB: number;
  backends: number;
}

/**
 * The private memory (Private_Clean + Private_Dirty of /proc/<pid>/smaps_rollup, Linux 4.14
 * and later) of each client backend of the PostgreSQL cluster in `pgDataDir`: the postmaster's
 * children whose title names a user, a database and a client address (`postgres: user db
 * 127.0.0.1(port) idle`, PostgreSQL's `update_process_title`), the background processes left
 * out. A page of shared buffers counts only while no other process has it mapped (at most
 * shared_buffers over all of a node's backends): the rest is the backend's own caches
 * (catalog, plans, PL/pgSQL functions, Citus's metadata) and work memory.
 */
export function backendMemory(pgDataDir: string): BackendMemory {
  const postmaster = Number(readFileSync(path.join(pgDataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const sizes: number[] = [];
  for (const [pid, { ppid, cmdline }] of processTable()) {
    if (ppid !== postmaster || !/^postgres: \S+ \S+ (\S+\(\d+\)|\[local\])/.test(cmdline)) continue;
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const kB = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? 0);
      sizes.push((kB('Private_Clean') + kB('Private_Dirty')) / 1024);
    } catch {
      // the backend ended meanwhile
    }
  }
  return { totalMiB: sizes.reduce((a, b) => a + b, 0), maxMiB: Math.max(0, ...sizes), backends: sizes.length };
}
