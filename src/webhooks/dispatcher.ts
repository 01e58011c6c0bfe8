/**
 * The webhook dispatcher of one instance. Operations emit their events to the event
 * outbox (src/events/outbox.ts: `outbox_events`, in the transaction of their effect), which
 * makes each one pending (a row of `outbox_pending`); the relay turns each committed pending
 * event into one delivery per ENABLED endpoint of its business subscribed to its code, and
 * `webhook-delivery` jobs for them (each naming up to DELIVERIES_PER_JOB deliveries of one
 * endpoint), in one transaction that also takes it from the pending ones (takePendingEvents).
 * It is the outbox's reader, not a job runner: every instance runs it, each round finds the
 * businesses with pending events and relays each business's in a transaction of its own,
 * `FOR UPDATE SKIP LOCKED` gives each pending event to one of them, and an event is either
 * dispatched with all its jobs or not at all. Delivery, retries, back-off and recovery after a
 * restart are the job queue's (./delivery.ts).
 *
 * Payouts and other producers need nothing from here: emitting the event in their
 * transaction is enough. The outbox itself is insert-only (why: `outbox_pending` in
 * src/db/migrations/024_baseline.ts).
 */
import { API_VERSIONING } from '../kernel/versioning/apiVersions.js';
import type { ApiVersioning } from '../kernel/versioning/versionChange.js';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { acrossBusinesses } from '../db/acrossBusinesses.js';
import type { OutageLog } from '../db/unavailable.js';
import type { JobQueue } from '../jobs/queue.js';
import { backgroundTransaction } from '../kernel/scheduling/background.js';
import { chunks } from '../kernel/chunks.js';
import type { Logger } from '../log.js';
import { EndpointConcurrency } from './endpointConcurrency.js';
import { AttemptRecorder } from './attemptRecorder.js';
import { runDeliveryJob, type DeliveryDeps } from './delivery.js';
import { DELIVERIES_PER_JOB, DELIVERY_QUEUE, type DeliveryJob } from './deliveryJobs.js';
import { DeliveryReader } from './deliveryReader.js';
import { takePendingEvents } from '../events/outbox.js';

/** Events taken per relay transaction. */
const RELAY_BATCH = 100;

/** Businesses a relay round serves, those with the oldest pending events first. */
const RELAY_BUSINESSES = 20;

/**
 * The businesses of the oldest pending events, oldest first (at most `limit`, among the
 * `limit` × RELAY_BATCH oldest events: one index range however many are pending): the
 * relay's one read across businesses (on Citus, one query per shard, without locks:
 * docs/scale-out.md names it), run with fan-out allowed (`acrossBusinesses`).
 */
export async function pendingBusinesses(db: Knex, limit: number): Promise<string[]> {
  return acrossBusinesses(db, async (trx) => {
    const { rows } = await trx.raw<{ rows: { business_id: string }[] }>(
      `SELECT business_id FROM (SELECT business_id, created_at FROM outbox_pending ORDER BY created_at, event_id LIMIT ?) p
        GROUP BY business_id ORDER BY min(created_at) LIMIT ?`,
      [limit * RELAY_BATCH, limit],
    );
    return rows.map((r) => r.business_id);
  });
}

/**
 * Dispatches up to one batch of business `businessId`'s pending events, oldest first;
 * returns how many. New deliveries are PENDING with a job for attempt 1 due now. One
 * transaction in the instance's background lane (src/kernel/scheduling/background.ts), which names
 * the business in every statement: distributed by business it stays on one node
 * (docs/scale-out.md). `FOR UPDATE SKIP LOCKED` gives each pending event to one instance.
 */
export async function relayBusiness(db: Knex, jobs: JobQueue, businessId: string): Promise<number> {
  return backgroundTransaction(db, async (trx) => {
    const events = await takePendingEvents(trx, businessId, RELAY_BATCH);
    if (events.length === 0) return 0;
    // Read, then written as VALUES: on Citus an INSERT … SELECT that draws ids would be
    // copied through the coordinator and commit in two phases. An endpoint gets the events
    // made since it was registered; an older one only by redelivery or recovery, whenever
    // the relay happens to reach it.
    const pairs = await trx.raw<{ rows: { event_id: string; endpoint_id: string }[] }>(
      `SELECT e.id AS event_id, w.id AS endpoint_id
         FROM outbox_events e
         JOIN webhook_endpoints w ON w.business_id = e.business_id AND w.status = 'ENABLED' AND w.events @> jsonb_build_array(e.code)
                                 AND w.created_at <= e.created_at
        WHERE e.id = ANY(?) AND e.business_id = ?`,
      [events, businessId],
    );
    if (pairs.rows.length === 0) return events.length;
    const deliveries: { id: string; endpoint_id: string }[] = await trx('webhook_deliveries')
      .insert(pairs.rows.map((p) => ({ id: randomUUID(), business_id: businessId, event_id: p.event_id, endpoint_id: p.endpoint_id, kind: 'EVENT', status: 'PENDING', next_attempt_at: trx.fn.now() })))
      .onConflict()
      .ignore()
      .returning(['id', 'endpoint_id']);
    // A job's deliveries share one endpoint: its attempts then wait on no other's.
    const byEndpoint = new Map<string, string[]>();
    for (const { id, endpoint_id } of deliveries) {
      const ids = byEndpoint.get(endpoint_id);
      if (ids) ids.push(id);
      else byEndpoint.set(endpoint_id, [id]);
    }
    const groups = [...byEndpoint.values()].flatMap((ids) => chunks(ids, DELIVERIES_PER_JOB));
    await jobs.sendMany(DELIVERY_QUEUE, groups.map((delivery_ids) => ({ delivery_ids, attempt: 1, business_id: businessId }) satisfies DeliveryJob), { trx, businessId });
    return events.length;
  }, 'deliveries');
}

export interface DispatcherOptions extends Omit<DeliveryDeps, 'endpoints' | 'recorder' | 'reader' | 'versioning'> {
  log: Logger;
  /** The versions events are rendered with (API_VERSIONING unless a test build gives others). */
  versioning?: ApiVersioning;
  /** Where a database outage met by the relay is logged (once per outage, with the requests'). */
  outages?: OutageLog;
  /** Pause between relay rounds when the outbox is empty. */
  relayIntervalMs: number;
  /** Delivery jobs run at once per instance, in units of JOBS_PER_CONCURRENCY (WEBHOOK_CONCURRENCY). */
  concurrency: number;
}

/**
 * Delivery jobs an instance runs at once per unit of `concurrency` (4 by default: 64
 * jobs, up to 1,024 deliveries). Generous, because a job waiting for a failing
 * endpoint holds its place for up to its time-out: the jobs of a few such endpoints
 * leave most places to the others.
 */
export const JOBS_PER_CONCURRENCY = 16;

/** A running dispatcher; `stop()` ends the relay loop (the queue is stopped by its owner). */
export interface Dispatcher {
  stop(): Promise<void>;
}

/** Starts the delivery workers and the relay loop of this instance. */
export async function startDispatcher(opts: DispatcherOptions): Promise<Dispatcher> {
  const { db, jobs, log } = opts;
  const endpoints = new EndpointConcurrency();
  const recorder = new AttemptRecorder(opts);
  const deps: DeliveryDeps = { ...opts, versioning: opts.versioning ?? API_VERSIONING, endpoints, recorder, reader: new DeliveryReader(db) };
  // Each job on its own (a stream, src/jobs/stream.ts): a job whose endpoint answers slowly
  // or not at all holds its own place only, while the jobs fetched with it end and free theirs.
  await jobs.defineStream<DeliveryJob>({
    name: DELIVERY_QUEUE,
    maxActive: opts.concurrency * JOBS_PER_CONCURRENCY,
    fetchSize: JOBS_PER_CONCURRENCY,
    // pg-boss's own retries are for a handler that threw (the database was unreachable
    // while recording) or a process that died mid-job; HTTP failures follow the schedule.
    retryLimit: 1000,
    retryDelaySeconds: 5,
    expireInSeconds: Math.ceil(opts.timeoutMs / 1000) + 45,
    handler: (job, signal) => runDeliveryJob(deps, job, signal),
  });

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();
  let lastErrorLog = 0;
  const loop = async (): Promise<void> => {
    let full = false;
    try {
      for (const businessId of await pendingBusinesses(db, RELAY_BUSINESSES)) {
        if ((await relayBusiness(db, jobs, businessId)) >= RELAY_BATCH) full = true;
      }
    } catch (err) {
      // An outage or a broken schema would repeat every round: the outage is the outage
      // log's one line, anything else is logged once a minute.
      if (!opts.outages?.noteBackground(err) && Date.now() - lastErrorLog > 60_000) {
        lastErrorLog = Date.now();
        const e = err as { code?: string; message?: string };
        log.warn({ relay_error: e.code ?? e.message?.slice(0, 200) }, 'webhook relay: outbox not readable (retrying)');
      }
    }
    if (!stopped) timer = setTimeout(() => (round = loop()), full ? 0 : opts.relayIntervalMs);
  };
  round = loop();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await round;
    },
  };
}
