/**
 * Idempotency keys for money-moving POSTs (../shared/API_CONVENTIONS.md,
 * "Idempotency"; the design follows the IETF draft
 * "The Idempotency-Key HTTP Header Field").
 *
 * 1. claim: the key is inserted IN_PROGRESS and committed on its own, so a
 *    concurrent duplicate sees it: same body → 409 IDEMPOTENCY_KEY_IN_USE with
 *    Retry-After; different body → 422 IDEMPOTENCY_KEY_REUSED.
 * 2. run: the operation runs in one database transaction that also marks the key
 *    COMPLETED with the response, so the effect and the stored response commit
 *    together: exactly one effect however many duplicates arrive.
 * 3. A typed failure (4xx) is stored too and replayed as it was; an unexpected
 *    failure releases the key (unless its effect committed) so that a retry can run.
 * 4. A claim left IN_PROGRESS for over STALE_SECONDS (its process died) may be
 *    taken over by the same request; the takeover gives the row a new id, so the
 *    original, should it still be running, fails to complete and rolls back:
 *    never two effects.
 * Keys are scoped to the calling business (or platform client) and kept 24 hours.
 *
 * Steps 1 and 2 are one database round trip: the operation's ledger call
 * (`ledger_move_once`, src/db/migrations/003_ledger_movements.ts) claims the
 * key, commits the claim, moves the money and completes the key. The stored
 * response of a success is the posting the ledger returned, which the
 * operation renders again on a replay (same posting, same body); a 4xx is
 * stored here as the problem sent. A replay is sent with `Idempotent-Replayed: true`.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError } from '../errors.js';

const KEY_TTL_HOURS = 24;
const STALE_SECONDS = 60;

/** A response as sent on the wire. */
export interface StoredResponse {
  status: number;
  body: unknown;
  contentType?: string;
}

/** Stable JSON (sorted object keys) for hashing request bodies. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Fingerprint of an operation call: operationId, path parameters and body. */
export function requestHash(operationId: string, path: unknown, body: unknown): string {
  return createHash('sha256').update(canonical({ operationId, path, body })).digest('hex');
}

/** A stored response to send again as it is (a 4xx kept in step 3). */
class StoredReplay {
  constructor(readonly response: StoredResponse) {}
}

/** The key's row as an earlier request left it. */
interface HeldKey {
  request_hash: string;
  state: 'IN_PROGRESS' | 'COMPLETED';
  response: (Partial<StoredResponse> & { posting?: unknown }) | null;
}

/**
 * One request's Idempotency-Key, for the operation's database call to claim
 * (see the module comment). `id` is the claim's row id.
 */
export class KeyClaim {
  readonly id = randomUUID();
  /** Set by the operation when its database call (which claims the key) is sent. */
  sent = false;
  /** Set when an earlier request holds the key. */
  held = false;
  /** Set when the result is an earlier request's, to be sent as a replay. */
  replayed = false;

  constructor(
    readonly scope: string,
    readonly key: string,
    readonly hash: string,
  ) {}

  /** The claim's arguments of `idempotency_claim` and `ledger_move_once`: id, scope, key, hash, TTL and staleness (seconds). */
  sqlArgs(): [string, string, string, string, number, number] {
    return [this.id, this.scope, this.key, this.hash, KEY_TTL_HOURS * 3600, STALE_SECONDS];
  }

  /**
   * What the key held by an earlier request means for this one: its stored
   * posting, returned (a replay, to render as the first time); or throws
   * IDEMPOTENCY_KEY_REUSED (another request body), IDEMPOTENCY_KEY_IN_USE
   * (still running; Retry-After: 1), or a stored response to send as it is.
   */
  resolveHeld(row: unknown): unknown {
    const held = row as HeldKey;
    this.held = true;
    if (held.request_hash !== this.hash) {
      throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request.');
    }
    if (held.state === 'IN_PROGRESS' || !held.response) {
      throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed.', {
        headers: { 'Retry-After': '1' },
      });
    }
    this.replayed = true;
    if (held.response.posting !== undefined) return held.response.posting;
    throw new StoredReplay(held.response as StoredResponse);
  }
}

/** Marks claim `id` COMPLETED with `response` (if still IN_PROGRESS). */
async function complete(db: Knex, id: string, response: StoredResponse): Promise<void> {
  await db('idempotency_keys')
    .where({ id, state: 'IN_PROGRESS' })
    .update({ state: 'COMPLETED', response_status: response.status, response_body: JSON.stringify(response) });
}

/**
 * Runs `run` at most once per (scope, key, request): `run` passes the KeyClaim
 * to its database call, which claims the key (ledger `move`). Returns its
 * response, with `replayed: true` when it is an earlier request's. `toStored`
 * renders a typed failure as the response to keep (problem details). A typed
 * failure before the database call (e.g. a sandbox-only operation outside the
 * sandbox) claims the key here to store it, as the request would have.
 */
export async function withIdempotency(
  db: Knex,
  args: { scope: string; key: string; hash: string; toStored: (err: AppError) => StoredResponse },
  run: (claim: KeyClaim) => Promise<StoredResponse>,
): Promise<{ response: StoredResponse; replayed: boolean }> {
  const claim = new KeyClaim(args.scope, args.key, args.hash);
  try {
    const response = await run(claim);
    if (!claim.sent) throw new Error('idempotent operation did not claim its Idempotency-Key');
    return { response, replayed: claim.replayed };
  } catch (err) {
    if (err instanceof StoredReplay) return { response: err.response, replayed: true };
    if (!claim.sent && err instanceof AppError) return storeEarlyFailure(db, claim, args.toStored(err), err);
    if (claim.sent && !claim.held) {
      if (err instanceof AppError) await complete(db, claim.id, args.toStored(err));
      else await db('idempotency_keys').where({ id: claim.id, state: 'IN_PROGRESS' }).delete(); // a committed effect keeps its key
    }
    throw err;
  }
}

/**
 * Claims the key for a request that failed with `err` before its database call
 * and stores `stored` (then throws `err`); or, when an earlier request holds
 * the key, answers as for any duplicate.
 */
async function storeEarlyFailure(
  db: Knex,
  claim: KeyClaim,
  stored: StoredResponse,
  err: AppError,
): Promise<{ response: StoredResponse; replayed: boolean }> {
  const { rows } = await db.raw('SELECT idempotency_claim(?::uuid, ?, ?, ?, ?::int, ?::int) AS held', claim.sqlArgs());
  if (!rows[0].held) {
    await complete(db, claim.id, stored);
    throw err;
  }
  try {
    claim.resolveHeld(rows[0].held);
  } catch (heldErr) {
    if (heldErr instanceof StoredReplay) return { response: heldErr.response, replayed: true };
    throw heldErr;
  }
  // The key holds a posting: the same request once reached the ledger and now fails
  // before it (e.g. the sandbox was turned off since). Answer the failure.
  throw err;
}
