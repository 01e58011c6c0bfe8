/**
 * Batched posting: concurrent movements of one business are posted together, many
 * per database transaction, so that a hot account (the operational account every
 * fund debits) is locked, and a commit is paid, once per batch rather than once per
 * movement. The same idea as TigerBeetle's batches of transfers and PostgreSQL's own
 * group commit.
 *
 * - No timer: a movement that finds room in flight in its business's lane (below)
 *   is sent at once, alone, so a lone request waits for nothing. Otherwise it waits,
 *   and the next batch takes the waiting ones (up to HOT_BATCH_ITEMS) as soon as one
 *   returns.
 * - Two lanes per business, because two kinds of movement lock differently:
 *   - the *hot lane*: movements that lock one of the business's own accounts (every
 *     fund, closed-loop payout and withdrawal locks the operational account, every card
 *     purchase the settlement account). Every batch of them meets on that row, so
 *     HOT_BATCHES_IN_FLIGHT (2) are in flight and the next takes everything waiting.
 *   - the *wallet lane*: transfers, which lock only the two wallets they name. Up to
 *     WALLET_BATCHES_IN_FLIGHT batches are in flight, and no two of them name a common
 *     wallet: a transfer whose wallet a batch in flight holds waits for the next batch,
 *     and so does any later transfer naming a wallet of a transfer left waiting (so the
 *     movements of one wallet keep their order of arrival). Without that rule the
 *     batches' wallet locks make them wait on each other inside PostgreSQL, and batched
 *     transfers are no faster than transfers posted alone, though each costs the
 *     database less CPU.
 * - A movement whose Idempotency-Key is in a batch in flight is not queued but sent
 *   alone at once: the database answers it as any request whose key another holds
 *   (409 IDEMPOTENCY_KEY_IN_USE, 422 IDEMPOTENCY_KEY_REUSED), where queued it would wait
 *   for the batch (its wallets are that batch's).
 * - A batch is one statement, `ledger_move_batch` (src/ledger/sql/ledger_move_batch.sql):
 *   one transaction, one round trip, one result per item. Each item keeps everything
 *   a single movement has: its own ledger transaction and entries, its own
 *   Idempotency-Key record, its own refusal (which changes nothing and does not affect
 *   the other items). A batch with no refusal and no key used before is written by a
 *   fixed number of statements, whatever its size (`ledger_move_set`).
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
import type { KeyClaim } from '../kernel/idempotency/idempotency.js';
import { LEDGER_BATCH_EVENT } from '../kernel/metrics/metrics.js';

const BATCHED_MOVEMENTS = preparedStatement('ledger_batched_movements', 'SELECT ledger_batched_movements() AS types');
const batchedSets = new WeakMap<Knex, Promise<ReadonlySet<string>>>();

/**
 * The movements that are batched: those whose accounts are named by the request, so a
 * batch can lock them in ledger_post's order (the wallets, then the business's own
 * accounts). The list is the database's (`ledger_batched_movements`,
 * src/ledger/sql/ledger_move_batch.sql, whose lock order depends on it), read once per
 * pool `db`; a read that fails is made again by the next movement. Rejects with the
 * database's error.
 */
export function batchedMovements(db: Knex): Promise<ReadonlySet<string>> {
  let types = batchedSets.get(db);
  if (!types) {
    types = preparedQuery<{ types: string[] }>(db, BATCHED_MOVEMENTS, []).then((rows) => new Set(rows[0].types));
    types.catch(() => batchedSets.delete(db));
    batchedSets.set(db, types);
  }
  return types;
}

/** Those of the batched movements that lock no account of the business's own, only the wallets they name: the wallet lane. */
const WALLET_LANE: ReadonlySet<string> = new Set(['TRANSFER']);

/** Most items in one hot-lane batch: bounds a batch's time holding its locks, and its statement's size. */
export const HOT_BATCH_ITEMS = 256;

/**
 * Hot-lane batches of one business in flight at once from one instance. Two keep the
 * database busy while a batch's answer travels back and the next one is gathered; more
 * would only queue on the hot account's lock (1 and 3 are both slower than 2).
 */
export const HOT_BATCHES_IN_FLIGHT = 2;

/**
 * Wallet-lane batches of one business in flight at once from one instance, holding
 * disjoint wallets: enough to keep both of the database's cores busy while answers
 * travel back, few enough that each batch carries many transfers under load. Posted
 * set-wise, a transfer costs the database less the more share its batch, so three
 * batches of up to 16 serve more transfers a second than six of up to 8.
 */
export const WALLET_BATCHES_IN_FLIGHT = 3;

/**
 * Most items in one wallet-lane batch. A batch's time grows with its items; without a
 * cap, the first batch to return takes every waiting transfer while the other slots
 * go out nearly empty, and the big batch sets the p99. Three batches of 16 hold about the
 * bench's 50 connections.
 */
export const WALLET_BATCH_ITEMS = 16;

const LEDGER_MOVE_BATCH = preparedStatement('ledger_move_batch', 'SELECT ledger_move_batch(?::uuid, ?::jsonb) AS results');

/** A movement waiting for its batch, and how to answer it. */
interface Pending {
  type: string;
  request: object;
  claim: KeyClaim | null | undefined;
  /** Wallet-lane movements: the wallets the request names (lower case), which its batch holds. */
  wallets: string[];
  resolve(result: unknown): void;
  reject(err: unknown): void;
}

/** One lane of one business: the movements waiting, and the batches in flight. */
interface Lane {
  waiting: Pending[];
  inFlight: number;
  /** Wallet lane: the wallets of the batches in flight (a wallet is in one batch at most). */
  held?: Set<string>;
}

/** A claim's Idempotency-Key as one string (its scope and key). */
function keyOf(claim: KeyClaim): string {
  return `${claim.scope}\u0000${claim.key}`;
}

/** The wallets a wallet-lane `request` names, as lock keys. */
function walletsOf(request: object): string[] {
  const r = request as { source_wallet_id?: unknown; destination_wallet_id?: unknown };
  return [r.source_wallet_id, r.destination_wallet_id].filter((w): w is string => typeof w === 'string').map((w) => w.toLowerCase());
}

/**
 * The next batch of `lane`, taken out of its waiting list. Hot lane: the first
 * HOT_BATCH_ITEMS waiting. Wallet lane: up to WALLET_BATCH_ITEMS, in order of arrival, each movement none of
 * whose wallets is held by a batch in flight or named by a movement passed over
 * before it (which keeps each wallet's movements in their order); may be empty.
 */
function takeBatch(lane: Lane): Pending[] {
  const held = lane.held;
  if (!held) return lane.waiting.splice(0, HOT_BATCH_ITEMS);
  const batch: Pending[] = [];
  const left: Pending[] = [];
  const passed = new Set<string>();
  for (const p of lane.waiting) {
    if (batch.length < WALLET_BATCH_ITEMS && p.wallets.every((w) => !held.has(w) && !passed.has(w))) batch.push(p);
    else {
      left.push(p);
      for (const w of p.wallets) passed.add(w);
    }
  }
  lane.waiting = left;
  return batch;
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
  /** Lanes by business id and lane name; a lane is dropped when nothing waits and nothing is in flight. */
  private readonly lanes = new Map<string, Lane>();
  /** Idempotency-Keys (keyOf) of the movements in batches in flight, with how many hold each. */
  private readonly keysInFlight = new Map<string, number>();

  constructor(
    private readonly db: Knex,
    private readonly single: (type: string, businessId: string, request: object, claim: KeyClaim | null | undefined) => Promise<unknown>,
  ) {}

  /** Posts one movement in the next batch of its business and lane; resolves with its own result. */
  post(businessId: string, type: string, request: object, claim: KeyClaim | null | undefined): Promise<unknown> {
    // A key that a batch in flight holds is answered by the database at once (409 while
    // the same request runs, 422 for another), as it would be without batching; queued,
    // it would wait for the batch holding its wallets.
    if (claim && this.keysInFlight.has(keyOf(claim))) return this.single(type, businessId, request, claim);
    const wallet = WALLET_LANE.has(type);
    const name = `${wallet ? 'wallet' : 'hot'}:${businessId}`;
    let lane = this.lanes.get(name);
    if (!lane) {
      lane = { waiting: [], inFlight: 0, held: wallet ? new Set() : undefined };
      this.lanes.set(name, lane);
    }
    const wallets = wallet ? walletsOf(request) : [];
    const done = new Promise<unknown>((resolve, reject) => lane.waiting.push({ type, request, claim, wallets, resolve, reject }));
    this.flush(businessId, name, lane);
    return done;
  }

  /** Sends batches of `lane` while it has movements to send and room in flight. */
  private flush(businessId: string, name: string, lane: Lane): void {
    const limit = lane.held ? WALLET_BATCHES_IN_FLIGHT : HOT_BATCHES_IN_FLIGHT;
    while (lane.waiting.length > 0 && lane.inFlight < limit) {
      const batch = takeBatch(lane);
      if (batch.length === 0) break;
      const wallets = batch.flatMap((p) => p.wallets);
      for (const w of wallets) lane.held?.add(w);
      const keys = batch.flatMap((p) => (p.claim ? [keyOf(p.claim)] : []));
      for (const k of keys) this.keysInFlight.set(k, (this.keysInFlight.get(k) ?? 0) + 1);
      lane.inFlight++;
      void this.send(businessId, batch).finally(() => {
        lane.inFlight--;
        for (const w of wallets) lane.held?.delete(w);
        for (const k of keys) {
          const n = this.keysInFlight.get(k)! - 1;
          if (n > 0) this.keysInFlight.set(k, n);
          else this.keysInFlight.delete(k);
        }
        if (lane.waiting.length > 0) this.flush(businessId, name, lane);
        else if (lane.inFlight === 0) this.lanes.delete(name);
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
