/**
 * The lowest CPU priority for the PostgreSQL sessions of the background lane
 * (src/kernel/scheduling/background.ts), on the embedded database only.
 *
 * Why: PostgreSQL runs each session in a process of its own and has no setting for a
 * session's share of the CPU. On a machine where the API's sessions and the lane's
 * (a bulk payout's creation, a batch of payout steps, a relay round) share the cores,
 * a backend working for the lane then takes the CPU as readily as one working for a
 * request. The operating system's priority of the backend process is the one lever: the
 * `pg_prioritize` extension sets it from SQL (`set_backend_priority(pid, 19)`); the
 * service, which starts the embedded cluster and runs as its owner or as root, sets it
 * directly (setpriority(2), nice 19: a runnable nice-0 process gets about 98 % of a core
 * it shares with a nice-19 one). Why it matters: openapi/DESIGN.md ("Where the other
 * traffic's p99 goes").
 *
 * Sessions of their own: PostgreSQL starts every backend in a process session of its own
 * (the postmaster's children call setsid(2)), and where Linux groups processes by session
 * for scheduling (autogroup, `/proc/sys/kernel/sched_autogroup_enabled` = 1, the default
 * of most distributions' kernels) the CPU is shared between sessions first: a process's
 * own nice then only orders it against the other processes of its session, none for a
 * backend, and a backend at nice 19 still weighs as much as the service's whole session.
 * The weight of a session is its autogroup's nice (sched(7), "The autogroup feature"),
 * so a background backend's autogroup is set to 19 as well (`/proc/<pid>/autogroup`).
 *
 * Only for the embedded database: on another machine the process id names nothing here,
 * and an operator's database is the operator's to schedule.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import type pg from 'pg';
import type { Logger } from '../log.js';

/** The nice value of a background session's backend (the lowest priority). */
export const BACKGROUND_NICE = 19;

/** Where Linux says whether it schedules processes by session (sched(7), "The autogroup feature"). */
const AUTOGROUP_SWITCH = '/proc/sys/kernel/sched_autogroup_enabled';

let sessionScheduling: boolean | undefined;

/** Whether this machine shares the CPU between process sessions first (see the module comment); read once. */
export function groupsBySession(): boolean {
  if (sessionScheduling === undefined) {
    try {
      sessionScheduling = readFileSync(AUTOGROUP_SWITCH, 'utf8').trim() === '1';
    } catch {
      sessionScheduling = false; // not Linux, or a kernel without autogroup
    }
  }
  return sessionScheduling;
}

/**
 * Sets the backend process of `client` (a connected session of a PostgreSQL on this
 * machine; pg's `processID`) to nice BACKGROUND_NICE, and its session's autogroup too
 * where the kernel schedules by session (see the module comment). Returns null, or the
 * error the system answered (EPERM or EACCES: another user's process without the right;
 * ESRCH or ENOENT: no such process here). Lowering a priority needs no privilege for the
 * process's owner.
 */
export function lowerBackendPriority(client: pg.Client): Error | null {
  const pid = (client as unknown as { processID: number | null }).processID;
  if (!pid) return new Error('the session has no backend process id');
  try {
    os.setPriority(pid, BACKGROUND_NICE);
    if (groupsBySession()) writeFileSync(`/proc/${pid}/autogroup`, String(BACKGROUND_NICE));
    return null;
  } catch (err) {
    return err as Error;
  }
}

/**
 * The nice of the autogroup (scheduling group of a process session) of process `pid`,
 * or null where the kernel does not schedule by session or the process is not here.
 */
export function autogroupNice(pid: number): number | null {
  if (!groupsBySession()) return null;
  try {
    const match = /nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/**
 * The `afterConnect` hook (./knex.ts) of a pool whose sessions run at the lowest CPU
 * priority: each new connection's backend is lowered (lowerBackendPriority); the first
 * refusal is logged at warn on `log`, the session is used all the same.
 */
export function lowPriorityConnections(log: Logger): (connection: pg.Client) => void {
  let refusedBefore = false;
  return (connection) => {
    const refused = lowerBackendPriority(connection);
    if (refused && !refusedBefore) log.warn({ err: refused }, 'background sessions keep the normal CPU priority: lowering it was refused');
    refusedBefore ||= refused !== null;
  };
}
