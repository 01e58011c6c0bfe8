/**
 * Batched posting: concurrent movements of one business are posted together, many
 * per database transaction, so that a hot account (the operational account every
 * fund debits) is locked, and a commit is paid, once per batch rather than once per
 * movement. The same idea as TigerBeetle's batches of transfers and PostgreSQL's own
 * group commit.
 *
 * - No timer: a movement that finds fewer than BATCHES_IN_FLIGHT batches of its
 *   business in flight is sent at once, alone, so a lone request waits for nothing.
 *   Otherwise it waits, and the next batch takes every waiting one (up to
 *   MAX_BATCH_ITEMS) as soon as one returns.
 * - Batched are the movements that lock one of the business's own accounts (every
 *   fund, closed-loop payout and withdrawal locks the operational account, every card
 *   purchase the settlement account): those are the hot rows. A transfer locks two
 *   wallets, which rarely meet, and is posted alone: on 2,000 wallets, batching
 *   transfers measured slower in `npm run bench` (0.46–0.52 × the reference against
 *   0.67 ×), the batches' wallet locks making them wait on each other.
 * - A batch is one statement, `ledger_move_batch` (src/ledger/sql/ledger_move_batch.sql):
 *   one transaction, one round trip, one result per item. Each item keeps everything
 *   a single movement has: its own ledger transaction and entries, its own
 *   Idempotency-Key record, its own refusal (which changes nothing and does not affect
 *   the other items).
 * - Batches never span businesses: each movement stays on its business's shard when
 *   the schema is distributed by `business_id`.
 * - A deadlock or serialization failure retries the whole batch (`preparedQuery`,
 *   src/db/retry.ts). Any other error PostgreSQL raised for the statement rolled the
 *   batch back, so its items are posted again one by one, each answered by its own
 *   outcome (one faulty item fails alone). An error of the connection (an outage, a
 *   crash) leaves the outcome unknown and is every item's answer: their clients retry
 *   with their keys, as after a crash, which loses only unanswered items.
 * - A batcher belongs to one pool (one service instance): API nodes keep no state
 *   beyond the movements they are answering.
 */
import type { Knex } from 'knex';
import { preparedQuery, preparedStatement } from '../db/knex.js';
import type { KeyClaim } from '../kernel/idempotency.js';
import { LEDGER_BATCH_EVENT } from '../kernel/metrics.js';

/** Movements whose accounts are named by the request, so a batch can lock them all first, in id order. */
export const BATCHED_MOVEMENTS: ReadonlySet<string> = new Set(['FUND', 'PAYOUT', 'WITHDRAWAL', 'CARD_PURCHASE']);

/** Most items in one batch: bounds a batch's time holding its locks, and its statement's size. */
export const MAX_BATCH_ITEMS = 256;

/**
 * Batches of one business in flight at once from one instance. Two keep the database
 * busy while a batch's answer travels back and the next one is gathered; more would only
 * queue on the hot account's lock (measured: 1 and 3 are slower than 2).
 */
export const BATCHES_IN_FLIGHT = 2;

const LEDGER_MOVE_BATCH = preparedStatement('ledger_move_batch', 'SELECT ledger_move_batch(?::uuid, ?::jsonb) AS results');

/** A movement waiting for its batch, and how to answer it. */
interface Pending {
  type: string;
  request: object;
  claim: KeyClaim | null | undefined;
  resolve(result: unknown): void;
  reject(err: unknown): void;
}

/** The movements of one business: those waiting, and how many batches are in flight. */
interface BusinessQueue {
  waiting: Pending[];
  inFlight: number;
}

/** SQLSTATE classes of a connection that failed or a server that stopped: the batch's outcome is unknown. */
const CONNECTION_CLASSES = ['08', '57', '53'];

/** True when PostgreSQL raised `err` for the statement itself, so the batch was rolled back. */
function rolledBack(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.length === 5 && !CONNECTION_CLASSES.includes(code.slice(0, 2));
}

/** The key arguments of `ledger_move_keyed`, as the JSON array `ledger_move_batch` reads. */
function keyArguments(claim: KeyClaim): unknown[] {
  const [scope, key, hash, ttl, stale, context] = claim.sqlArgs();
  return [scope, key, hash, ttl, stale, JSON.parse(context)];
}

/**
 * The batcher of one pool. `post(businessId, type, request, claim, single)` answers what
 * `ledger_move` or `ledger_move_keyed` would answer for that movement alone; `single` posts
 * one movement on its own (the fallback after a batch rolled back by an item).
 */
export class PostingBatcher {
  private readonly queues = new Map<string, BusinessQueue>();

  constructor(
    private readonly db: Knex,
    private readonly single: (type: string, businessId: string, request: object, claim: KeyClaim | null | undefined) => Promise<unknown>,
  ) {}

  /** Posts one movement in the business's next batch; resolves with its own result. */
  post(businessId: string, type: string, request: object, claim: KeyClaim | null | undefined): Promise<unknown> {
    let queue = this.queues.get(businessId);
    if (!queue) {
      queue = { waiting: [], inFlight: 0 };
      this.queues.set(businessId, queue);
    }
    const done = new Promise<unknown>((resolve, reject) => queue.waiting.push({ type, request, claim, resolve, reject }));
    this.flush(businessId, queue);
    return done;
  }

  /** Sends the waiting movements of `businessId` as batches while fewer than BATCHES_IN_FLIGHT are in flight. */
  private flush(businessId: string, queue: BusinessQueue): void {
    while (queue.waiting.length > 0 && queue.inFlight < BATCHES_IN_FLIGHT) {
      const batch = queue.waiting.splice(0, MAX_BATCH_ITEMS);
      queue.inFlight++;
      void this.send(businessId, batch).finally(() => {
        queue.inFlight--;
        if (queue.waiting.length > 0) this.flush(businessId, queue);
        else if (queue.inFlight === 0) this.queues.delete(businessId);
      });
    }
  }

  /** Posts `batch` and answers each of its movements; never rejects. */
  private async send(businessId: string, batch: Pending[]): Promise<void> {
    this.db.emit(LEDGER_BATCH_EVENT, { items: batch.length });
    if (batch.length === 1) {
      const [only] = batch;
      await this.single(only.type, businessId, only.request, only.claim).then(only.resolve, only.reject);
      return;
    }
    const items = batch.map((p) => ({ type: p.type, request: p.request, key: p.claim ? keyArguments(p.claim) : null }));
    let results: unknown[];
    try {
      const rows = await preparedQuery<{ results: unknown[] }>(this.db, LEDGER_MOVE_BATCH, [businessId, JSON.stringify(items)]);
      results = rows[0].results;
    } catch (err) {
      if (!rolledBack(err)) {
        for (const p of batch) p.reject(err);
        return;
      }
      await Promise.all(batch.map((p) => this.single(p.type, businessId, p.request, p.claim).then(p.resolve, p.reject)));
      return;
    }
    batch.forEach((p, i) => p.resolve(results[i]));
  }
}

const batchers = new WeakMap<Knex, PostingBatcher>();

/** The batcher of pool `db`, made on first use with `single` as its one-movement path. */
export function batcherOf(db: Knex, single: ConstructorParameters<typeof PostingBatcher>[1]): PostingBatcher {
  let batcher = batchers.get(db);
  if (!batcher) {
    batcher = new PostingBatcher(db, single);
    batchers.set(db, batcher);
  }
  return batcher;
}
