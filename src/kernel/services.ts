/**
 * The two values every layer passes around: who is calling (`Principal`, from the
 * bearer token) and the long-lived dependencies of a running instance (`Services`).
 * They live below the HTTP layer so that capability code can take them without
 * importing `src/http`.
 */
import type { Knex } from 'knex';
import type { Config } from './serviceConfig.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Logger } from '../log.js';
import type { Metrics } from './metrics/metrics.js';

/** Who is calling, from the bearer token. */
export interface Principal {
  kind: 'PLATFORM' | 'BUSINESS';
  clientId: string;
  /** The business a BUSINESS client acts for; null for PLATFORM clients. */
  businessId: string | null;
}

/** Long-lived dependencies of the handlers. */
export interface Services {
  db: Knex;
  config: Config;
  /** HS256 key for access tokens. */
  jwtKey: Uint8Array;
  log: Logger;
  metrics: Metrics;
  /** The durable job queue (pg-boss), shared by webhook delivery and later payouts. */
  jobs: JobQueue;
}

