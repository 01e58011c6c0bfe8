/**
 * The background lane: database work done for many payouts or deliveries at once runs
 * at most `concurrency` transactions at a time per pool (one by default,
 * BACKGROUND_CONCURRENCY). Its work: a bulk payout's creation (src/payouts/bulk.ts), the
 * payout processing's batched steps (src/payouts/processing.ts), the webhook relay
 * (src/webhooks/dispatcher.ts) and the recording of delivery attempts
 * (src/webhooks/attemptRecorder.ts). Single requests (a transfer, a read, one payout)
 * never wait here.
 *
 * Why: each of these transactions keeps a PostgreSQL backend busy for up to about a
 * second (a 1,000-item bulk payout), and ten bulk payouts sent at once, their 10,000
 * payouts' processing and their 30,000 deliveries would otherwise keep every core of a
 * small database busy, so the requests of everyone else would wait for a CPU and their
 * p99 would be many times the quiet service's. One at a time, the other traffic keeps
 * most of the machine, and the payouts complete sooner, not later, because they do not
 * compete with each other for the same cores and the same WAL flushes (openapi/DESIGN.md).
 *
 * Order: payout work (LaneWork `payouts`) starts before waiting webhook work
 * (`deliveries`), in order of arrival within each, except that after
 * PAYOUT_WORK_IN_A_ROW payout starts in a row the webhook work waiting longest starts
 * next. A payout is money on its way that its owner waits for, and a webhook only tells
 * of it; the webhook work still starts at least once in every five, so a delivery job,
 * which waits for its attempts' records and expires after about a minute, is never held
 * for long.
 *
 * Rest: after each piece of work that an API request overlapped (in flight at any moment
 * of it, ./apiActivity.ts), its slot rests for `restRatio` times as long as the work ran
 * (BACKGROUND_REST_RATIO, default 1), and DELIVERY_REST_FACTOR (2.5) times that after
 * webhook work, before the next piece starts. While the API has traffic the lane then
 * keeps a PostgreSQL backend busy at most half the time for payouts and 2 in 7 for
 * webhooks (beside ten bulk payouts of 1,000 items, about what one ratio of 1.5 for both
 * would give), and leaves the rest of the CPU, of the WAL flushes and of the event
 * loop to everyone else's requests. Work that no request overlapped does not rest: there
 * is no one to give way to, and the rest would only delay the lane's own work (the
 * payouts' processing, the deliveries a webhook receiver waits for). Beside a dead
 * webhook endpoint, a bulk payout's events then reach a healthy receiver sooner
 * (openapi/DESIGN.md, "Webhook endpoints isolated from each other"). The
 * caller has its answer as soon as its work ends: a bulk payout's creation answers
 * without waiting for the rest. Each piece of work disturbs about as many of the other
 * requests however it is spaced, so the share of disturbed requests falls with the share
 * of time the lane works (openapi/DESIGN.md, "Where the other traffic's p99 goes"), and
 * the split gives the payouts the larger share of the same time (openapi/DESIGN.md,
 * "Payouts first in the background lane"). An instance that serves no API traffic (a
 * worker) rests only after work a health check happened to overlap. A rest is at most
 * MAX_BACKGROUND_REST_MS: work that took longer spent its time waiting (for a lock, a
 * connection, a database that does not answer), not keeping a backend busy, and a rest in
 * proportion would stall the lane long after the wait ended.
 *
 * Connections: the lane may run on a pool of its own (`pool`, set by src/server.ts):
 * with the embedded database its sessions run at the lowest CPU priority
 * (src/db/priority.ts), so that a backend working for the lane gives way to one working
 * for a request.
 *
 * Lock safety: work takes the lane before it opens its transaction and gives it back
 * after its commit or rollback, so no work holds a database lock while it waits here;
 * work that waits for a business's turn (src/kernel/scheduling/turns.ts) takes the turn first. Like
 * a turn, the lane is an ordering within one instance: N instances run up to N ×
 * `concurrency` such transactions, and row locks keep the data right.
 */
import type { Knex } from 'knex';
import { watchApiRequests } from './apiActivity.js';
import { WorkQueue } from './workQueue.js';

/** The concurrency of a pool that configureBackground was not called for. */
export const DEFAULT_BACKGROUND_CONCURRENCY = 1;

/** The largest concurrency accepted: each slot is a connection of the lane's pool. */
export const MAX_BACKGROUND_CONCURRENCY = 64;

/** Whether `n` is a concurrency the lane accepts: an integer from 1 to MAX_BACKGROUND_CONCURRENCY. */
function isBackgroundConcurrency(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= MAX_BACKGROUND_CONCURRENCY;
}

/** The rest ratio of a pool that configureBackground was not called for (see the module comment). */
export const DEFAULT_BACKGROUND_REST_RATIO = 1;

/**
 * What a piece of background work is for, which sets its place in the lane and its rest
 * (see the module comment):
 * - `payouts`: a bulk payout's creation and the steps of payouts (src/payouts), and any
 *   work that is not the webhooks': starts before waiting `deliveries` work, except after
 *   PAYOUT_WORK_IN_A_ROW such starts in a row; rests `restRatio` × its time;
 * - `deliveries`: the webhook relay and the records of delivery attempts (src/webhooks):
 *   rests DELIVERY_REST_FACTOR × `restRatio` × its time.
 */
export type LaneWork = 'payouts' | 'deliveries';

/** Starts of `payouts` work in a row after which waiting `deliveries` work starts next. */
export const PAYOUT_WORK_IN_A_ROW = 4;

/** How many times longer than `payouts` work `deliveries` work rests, for the same time run. */
export const DELIVERY_REST_FACTOR = 2.5;

/** The largest rest ratio accepted: beyond it the lane would mostly sleep. */
export const MAX_BACKGROUND_REST_RATIO = 10;

/**
 * The longest rest after one piece of work, in ms (see the module comment). The lane's
 * transactions run for tens to hundreds of milliseconds (a 500-item call of a bulk
 * payout's creation among the longest), so their rests stay well below it. Work can
 * take far longer than it works: waiting for a lock another transaction holds, or for a
 * connection while the database does not answer (knex's pool waits up to 60 s for one),
 * and a rest in proportion would stall the lane half as long again after the wait.
 */
export const MAX_BACKGROUND_REST_MS = 5_000;

/** Whether `ratio` is a rest ratio the lane accepts: a number from 0 to MAX_BACKGROUND_REST_RATIO. */
export function isRestRatio(ratio: number): boolean {
  return ratio >= 0 && ratio <= MAX_BACKGROUND_REST_RATIO;
}

/** How the background lane of a pool runs its work (see the module comment). */
export interface BackgroundOptions {
  /** Pieces of work at a time (an integer from 1 to MAX_BACKGROUND_CONCURRENCY). */
  concurrency: number;
  /** A slot's rest after a piece of work, as a multiple of the time it ran (0 to MAX_BACKGROUND_REST_RATIO; 0: none). */
  restRatio?: number;
  /** The longest rest, in ms (default MAX_BACKGROUND_REST_MS; the tests shorten it). */
  maxRestMs?: number;
  /** The pool `backgroundTransaction` opens its transactions on (default: the pool itself). */
  pool?: Knex;
  /** Whether the lane's statements get generic plans (GENERIC_PLANS; default false: never on Citus, whose coordinator routes a statement by the business it names). */
  genericPlans?: boolean;
}

interface Lane {
  queue: WorkQueue;
  restRatio: number;
  maxRestMs: number;
  pool?: Knex;
  genericPlans?: boolean;
}

const lanes = new WeakMap<Knex, Lane>();

function laneOf(db: Knex): Lane {
  let lane = lanes.get(db);
  if (!lane) lanes.set(db, (lane = { queue: new WorkQueue(DEFAULT_BACKGROUND_CONCURRENCY, PAYOUT_WORK_IN_A_ROW), restRatio: DEFAULT_BACKGROUND_REST_RATIO, maxRestMs: MAX_BACKGROUND_REST_MS }));
  return lane;
}

/**
 * Sets how the background lane of pool `db` runs (at start, src/server.ts). Throws
 * RangeError for a concurrency that is not an integer from 1 to MAX_BACKGROUND_CONCURRENCY,
 * a rest ratio outside 0 … MAX_BACKGROUND_REST_RATIO, or a longest rest outside
 * 0 … MAX_BACKGROUND_REST_MS.
 */
export function configureBackground(db: Knex, opts: BackgroundOptions): void {
  const { concurrency, restRatio = DEFAULT_BACKGROUND_REST_RATIO, maxRestMs = MAX_BACKGROUND_REST_MS, pool, genericPlans = false } = opts;
  if (!isBackgroundConcurrency(concurrency)) throw new RangeError(`background concurrency must be an integer from 1 to ${MAX_BACKGROUND_CONCURRENCY}, got ${concurrency}`);
  if (!isRestRatio(restRatio)) throw new RangeError(`background rest ratio must be from 0 to ${MAX_BACKGROUND_REST_RATIO}, got ${restRatio}`);
  if (!(maxRestMs >= 0 && maxRestMs <= MAX_BACKGROUND_REST_MS)) throw new RangeError(`background longest rest must be from 0 to ${MAX_BACKGROUND_REST_MS} ms, got ${maxRestMs}`);
  const lane = laneOf(db);
  lane.queue.concurrency = concurrency;
  lane.restRatio = restRatio;
  lane.maxRestMs = maxRestMs;
  lane.pool = pool;
  lane.genericPlans = genericPlans;
}

/** The lane of pool `db` now: its concurrency, the work running (or resting after it) and the work waiting (for `/metrics`). */
export function backgroundLaneState(db: Knex): { concurrency: number; running: number; waiting: number } {
  const { queue } = laneOf(db);
  return { concurrency: queue.concurrency, running: queue.running, waiting: queue.waiting };
}

/**
 * The lane's statements are planned for any business, not for the one they name
 * (`plan_cache_mode`, PostgreSQL's plan cache: a generic plan leaves the parameters'
 * values out). The lane works for a business in bulk right after it starts (its first bulk
 * payout, its first deliveries), before the table statistics know it: planned for its
 * value, a statement reading its rows by id was estimated at one row for the business and
 * joined table to table by scanning the business's rows in each (a webhook delivery round
 * 0.7 s, a batch of payouts read for the rail 1.1 s, where generic plans take a few ms by the
 * primary keys). Not on Citus (configureBackground's `genericPlans`): its coordinator routes
 * a statement to the business's node by the value it names, and a generic plan leaves it out
 * ("could not create distributed plan").
 */
const GENERIC_PLANS = 'SET LOCAL plan_cache_mode = force_generic_plan';

/**
 * Runs `read`, background work's reads outside its transactions (the deliveries a webhook
 * job sends, the payouts a processing job steps), in a read transaction of their own on the
 * lane's pool when it has one (so that they too run on sessions that give way to the API's;
 * else on `db`), with generic plans where the lane has them (GENERIC_PLANS). Resolves or
 * rejects as `read` does.
 */
export function backgroundRead<T>(db: Knex, read: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return laneTransaction(db, read);
}

/** A transaction on the lane's pool of `db` (lanePool), with generic plans where the lane has them (GENERIC_PLANS). */
function laneTransaction<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return lanePool(db).transaction(async (trx) => {
    if (laneOf(db).genericPlans) await trx.raw(GENERIC_PLANS);
    return work(trx);
  });
}

/** The pool the lane of `db` runs its work on: its own when configureBackground gave it one, else `db`. */
function lanePool(db: Knex): Knex {
  return laneOf(db).pool ?? db;
}

/**
 * Runs `work` in a transaction in the lane of pool `db` (inBackground, as `kind` of work:
 * LaneWork), on the lane's own pool when it has one, with generic plans where the lane has
 * them (GENERIC_PLANS): commits when it resolves, rolls back and rejects as it does when it
 * throws.
 */
export function backgroundTransaction<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>, kind: LaneWork = 'payouts'): Promise<T> {
  return inBackground(db, () => laneTransaction(db, work), kind);
}

/**
 * Runs `run` (which opens and ends its own transaction), `kind` of work (LaneWork), once
 * fewer than the lane's concurrency of background work of pool `db` is running, after the
 * work that goes before it (`payouts` work before waiting `deliveries` work, in order of
 * arrival within each, see LaneWork); resolves or rejects as `run` does, as soon as it
 * ends. When an API request overlapped `run`, its slot then rests (see the module comment:
 * the rest ratio, times DELIVERY_REST_FACTOR for `deliveries` work, times as long as `run`
 * took, at most the lane's longest rest) before the next work starts.
 */
export function inBackground<T>(db: Knex, run: () => Promise<T>, kind: LaneWork = 'payouts'): Promise<T> {
  const lane = laneOf(db);
  const factor = kind === 'deliveries' ? DELIVERY_REST_FACTOR : 1;
  return new Promise<T>((resolve, reject) => {
    void lane.queue.run(
      async () => {
        const requests = watchApiRequests();
        const started = performance.now();
        await run().then(resolve, reject);
        if (!requests.overlapped()) return;
        const rest = Math.min((performance.now() - started) * lane.restRatio * factor, lane.maxRestMs);
        if (rest >= 1) await new Promise((r) => setTimeout(r, rest));
      },
      { urgent: kind === 'payouts' },
    );
  });
}
