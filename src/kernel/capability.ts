/**
 * The shape of a capability's face (src/<capability>/index.ts): the one module the handlers
 * and the capabilities above import of it, holding the functions they call and a `start`
 * that the assembly (src/server.ts) calls once per instance, in a loop, knowing none of the
 * capability's settings. `start` reads the capability's own settings from the configuration,
 * derives its keys once and starts its workers; what it returns is kept for the instance's
 * life, and `stop` ends its workers on shutdown (the job queue itself is stopped by the
 * assembly afterwards).
 */
import type { Knex } from 'knex';
import type { OutageLog } from '../db/unavailable.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Logger } from '../log.js';
import type { Config } from './serviceConfig.js';

/** What a capability's `start` is given: the instance's database, job queue, configuration, logger and outage log. */
export interface StartContext {
  db: Knex;
  jobs: JobQueue;
  config: Config;
  log: Logger;
  outages: OutageLog;
}

/** A started capability: how to stop its workers (resolves once they have ended). */
export interface Started {
  stop(): Promise<void>;
}

/** Nothing to stop: the `stop` of a capability that starts no worker of its own. */
export const NOTHING_TO_STOP: Started['stop'] = async () => undefined;
