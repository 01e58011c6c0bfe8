/**
 * The lowest CPU priority for the PostgreSQL sessions of the background lane
 * (src/kernel/background.ts), on the embedded database only.
 *
 * Why: PostgreSQL runs each session in a process of its own and has no setting for a
 * session's share of the CPU. On a machine where the API's sessions and the lane's
 * (a bulk payout's creation, a batch of payout steps, a relay round) share the cores,
 * a backend working for the lane then takes the CPU as readily as one working for a
 * request. The operating system's priority of the backend process is the one lever: the
 * `pg_prioritize` extension sets it from SQL (`set_backend_priority(pid, 19)`); the
 * service, which starts the embedded cluster and runs as its owner or as root, sets it
 * directly (setpriority(2), nice 19: a runnable nice-0 process gets about 98 % of a core
 * it shares with a nice-19 one). Measured in openapi/DESIGN.md ("Where the other
 * traffic's p99 goes").
 *
 * Only for the embedded database: on another machine the process id names nothing here,
 * and an operator's database is the operator's to schedule.
 */
import os from 'node:os';
import type pg from 'pg';
import type { Logger } from '../log.js';

/** The nice value of a background session's backend (the lowest priority). */
export const BACKGROUND_NICE = 19;

/**
 * Sets the backend process of `client` (a connected session of a PostgreSQL on this
 * machine; pg's `processID`) to nice BACKGROUND_NICE. Returns null, or the error the
 * system answered (EPERM: another user's process without the right; ESRCH: no such
 * process here). Lowering a process's priority needs no privilege for its owner.
 */
export function lowerBackendPriority(client: pg.Client): Error | null {
  const pid = (client as unknown as { processID: number | null }).processID;
  if (!pid) return new Error('the session has no backend process id');
  try {
    os.setPriority(pid, BACKGROUND_NICE);
    return null;
  } catch (err) {
    return err as Error;
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
