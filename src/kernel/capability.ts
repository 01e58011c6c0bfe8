/**
 * The shape of a capability's face (src/<capability>/index.ts): the one module the handlers
 * and the capabilities above import of it, holding the functions they call and a `start`
 * that the assembly (src/server.ts) calls once per instance, in a loop, knowing none of the
 * capability's settings. `start` reads the capability's own settings from the configuration,
 * derives its keys once (the handlers find them in `Services.keys`: no handler derives a key)
 * and starts its workers; what it returns is kept for the instance's life, and `stop` ends
 * its workers on shutdown (the job queue itself is stopped by the
 * assembly afterwards).
 */
import type { Knex } from 'knex';
import type { OutageLog } from '../db/unavailable.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Logger } from '../log.js';
import type { Config } from './serviceConfig.js';
import type { ServiceKeys } from './services.js';

/** What a capability's `start` is given: the instance's database, job queue, configuration, logger and outage log. */
export interface StartContext {
  db: Knex;
  jobs: JobQueue;
  config: Config;
  log: Logger;
  outages: OutageLog;
}

/** A started capability: how to stop its workers (resolves once they have ended), and the keys it derived for the handlers. */
export interface Started {
  stop(): Promise<void>;
  keys?: Partial<ServiceKeys>;
}

/**
 * The instance's keys: the kernel's own (`kernel`) and those each started capability derived.
 * Throws an Error naming a family no one derived (a face left out of the assembly).
 */
export function instanceKeys(kernel: Pick<ServiceKeys, 'otp' | 'replays'>, started: readonly Started[]): ServiceKeys {
  const keys: Partial<ServiceKeys> = { ...kernel };
  for (const s of started) Object.assign(keys, s.keys);
  const families: (keyof ServiceKeys)[] = ['cardData', 'webhookSecrets', 'nationalIds', 'replays', 'otp', 'totpSecrets'];
  const missing = families.filter((f) => keys[f] === undefined);
  if (missing.length) throw new Error(`no capability derived the keys: ${missing.join(', ')}`);
  return keys as ServiceKeys;
}

/** Nothing to stop: the `stop` of a capability that starts no worker of its own. */
export const NOTHING_TO_STOP: Started['stop'] = async () => undefined;
