/**
 * Prometheus metrics through prom-client, served by `GET /metrics` (text exposition
 * format 0.0.4). One registry per application instance (several may run in one
 * process, as in the tests):
 * - `http_requests_total` and `http_request_duration_seconds` (histogram) by
 *   `operation_id` (a page's root, `/portal` or `/docs`, for the service's pages outside the
 *   documents; `unrouted` for paths nothing matches) and `status`;
 * - `ledger_transactions_total` by `type`: ledger transactions this instance posted,
 *   counted where the ledger posts them (the ledger's and the payouts' calls of a posting
 *   function report LEDGER_POSTED_EVENT once the posting is committed, src/ledger/posted.ts):
 *   requests, batches and background work alike; a replayed Idempotency-Key or a refusal
 *   posts nothing;
 * - `db_pool_connections` by `pool` (`api`; `background`, the background lane's own pool
 *   when it has one) and `state` (`used`, `free`, `pending` acquisitions);
 * - `db_transaction_retries_total` by `sqlstate` (`40P01` deadlock, `40001`
 *   serialization failure): transactions run again after PostgreSQL aborted them for
 *   a conflict with concurrent ones (src/db/retry.ts);
 * - `ledger_batch_items`: movements per batch of batched posting (src/ledger/batching.ts);
 * - `db_batched_reads` by `reader`: reads per statement of batched reads by id
 *   (src/db/batchedReads.ts);
 * - `background_transactions` by `state` (`running`, `waiting`): the transactions of this
 *   instance's background lane (src/kernel/scheduling/background.ts); work waiting there long says the
 *   database has cores for a higher BACKGROUND_CONCURRENCY, or needs them;
 * - `outbox_backlog_events` and `outbox_oldest_event_age_seconds`: events of the event
 *   outbox not yet dispatched, read from the database at scrape time (the backlog is shared
 *   by all instances) through the OutboxBacklog the assembly gives (src/events/outbox.ts:
 *   the events room, above the kernel, owns the outbox).
 * - `api_request_log_entries_total` by `outcome` (`recorded`, `dropped`: the instance's
 *   queue was full, `failed`: the database refused or was unreachable): the entries of the API
 *   request log (src/audit/requestLog.ts reports REQUEST_LOG_EVENT on the API's pool).
 * Plus prom-client's default process metrics (CPU, memory, event loop lag, GC).
 */
import type { Knex } from 'knex';
import { RETRY_EVENT } from '../../db/retry.js';
import { backgroundLaneState } from '../scheduling/background.js';
import { READ_BATCH_EVENT } from '../../db/batchedReads.js';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The metrics of one application instance. */
export interface Metrics {
  registry: Registry;
  /** Records one finished request. */
  observeRequest(operationId: string | undefined, status: number, seconds: number): void;
}

/** The event outbox's backlog, read at each scrape; a number is NaN while it is unknown (the database unreachable). */
export interface OutboxBacklog {
  /** Events not yet dispatched. */
  events(): Promise<number>;
  /** Age in seconds of the oldest event not yet dispatched, 0 when none. */
  oldestAgeSeconds(): Promise<number>;
}

/** The Knex event of one batch of batched posting sent (src/ledger/batching.ts); its argument is `{ items }`. */
export const LEDGER_BATCH_EVENT = 'ledger-batch';

/**
 * The Knex event of committed ledger transactions (src/ledger/posted.ts), emitted on the pool
 * whose transaction posted them (the API's or the background lane's); its argument is
 * `{ type, count }`: `count` transactions of `type` (TransactionType, src/ledger/ledger.ts).
 */
export const LEDGER_POSTED_EVENT = 'ledger-posted';

/**
 * The Knex event of entries of the API request log settled (src/audit/requestLog.ts), emitted on
 * the API's pool; its argument is `{ outcome, count }`: `count` entries `recorded`, `dropped`
 * (the queue was full) or `failed` (the database refused them).
 */
export const REQUEST_LOG_EVENT = 'api-request-log';

/**
 * Creates the registry and its collectors over `db` (the API's pool), `outbox` (the event
 * outbox's backlog) and `backgroundPool` (the background lane's own, if it has one).
 */
export function createMetrics(db: Knex, outbox: OutboxBacklog, backgroundPool?: Knex): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by operation and status.',
    labelNames: ['operation_id', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by operation and status.',
    labelNames: ['operation_id', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const ledger = new Counter({
    name: 'ledger_transactions_total',
    help: 'Ledger transactions posted by this instance, by type.',
    labelNames: ['type'],
    registers: [registry],
  });
  // Both pools: payout steps and the webhooks' records run on the background lane's.
  const bothPools = backgroundPool ? [db, backgroundPool] : [db];
  for (const pool of bothPools) pool.on(LEDGER_POSTED_EVENT, ({ type, count }: { type: string; count: number }) => ledger.inc({ type }, count));
  const retries = new Counter({
    name: 'db_transaction_retries_total',
    help: 'Database transactions run again after a deadlock (40P01) or serialization failure (40001), by SQLSTATE.',
    labelNames: ['sqlstate'],
    registers: [registry],
  });
  for (const pool of bothPools) pool.on(RETRY_EVENT, ({ code }: { code: string }) => retries.inc({ sqlstate: code }));
  const batches = new Histogram({
    name: 'ledger_batch_items',
    help: 'Movements per batch of batched posting (a batch is one database transaction; 1 is a movement that found no batch in flight).',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [registry],
  });
  const requestLog = new Counter({
    name: 'api_request_log_entries_total',
    help: 'Entries of the API request log, by outcome (recorded; dropped: the queue was full; failed: the database refused them).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  db.on(REQUEST_LOG_EVENT, ({ outcome, count }: { outcome: string; count: number }) => requestLog.inc({ outcome }, count));
  db.on(LEDGER_BATCH_EVENT, ({ items }: { items: number }) => batches.observe(items));
  const reads = new Histogram({
    name: 'db_batched_reads',
    help: 'Reads per statement of batched reads by id, by reader (1 is a read that found room in flight).',
    labelNames: ['reader'],
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [registry],
  });
  db.on(READ_BATCH_EVENT, ({ reader, reads: n }: { reader: string; reads: number }) => reads.observe({ reader }, n));
  type Tarn = { numUsed(): number; numFree(): number; numPendingAcquires(): number };
  const pools: [string, Knex][] = backgroundPool ? [['api', db], ['background', backgroundPool]] : [['api', db]];
  new Gauge({
    name: 'db_pool_connections',
    help: "Database pool connections, by pool (api: requests'; background: the background lane's transactions and reads) and state (used, free, pending acquisitions).",
    labelNames: ['pool', 'state'],
    registers: [registry],
    collect() {
      for (const [name, k] of pools) {
        const pool = (k.client as { pool?: Tarn }).pool;
        this.set({ pool: name, state: 'used' }, pool?.numUsed() ?? 0);
        this.set({ pool: name, state: 'free' }, pool?.numFree() ?? 0);
        this.set({ pool: name, state: 'pending' }, pool?.numPendingAcquires() ?? 0);
      }
    },
  });
  new Gauge({
    name: 'background_transactions',
    help: 'Transactions of the background lane (bulk payout creation, batched payout steps, webhook relay and delivery records), by state (running, waiting).',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const lane = backgroundLaneState(db);
      this.set({ state: 'running' }, lane.running);
      this.set({ state: 'waiting' }, lane.waiting);
    },
  });
  new Gauge({
    name: 'outbox_backlog_events',
    help: 'Outbox events not yet dispatched.',
    registers: [registry],
    async collect() {
      this.set(await outbox.events());
    },
  });
  new Gauge({
    name: 'outbox_oldest_event_age_seconds',
    help: 'Age of the oldest outbox event not yet dispatched (0 when none).',
    registers: [registry],
    async collect() {
      this.set(await outbox.oldestAgeSeconds());
    },
  });
  return {
    registry,
    observeRequest(operationId, status, seconds) {
      const labels = { operation_id: operationId ?? 'unrouted', status: String(status) };
      requests.inc(labels);
      latency.observe(labels, seconds);
    },
  };
}
