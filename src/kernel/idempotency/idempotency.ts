/**
 * Idempotency keys for money-moving POSTs (openapi/API_CONVENTIONS.md,
 * "Idempotency"; the design follows the IETF draft
 * "The Idempotency-Key HTTP Header Field").
 *
 * 1. claim: a request holds its key while it runs, visibly to concurrent
 *    duplicates: same body → 409 IDEMPOTENCY_KEY_IN_USE with Retry-After;
 *    different body → 422 IDEMPOTENCY_KEY_REUSED.
 * 2. run: the operation runs in one database transaction that also stores the
 *    key COMPLETED with the response, so the effect and the stored response
 *    commit together: exactly one effect however many duplicates arrive.
 * 3. A typed failure (4xx) is stored too and replayed as it was; an unexpected
 *    failure stores nothing (its transaction rolls back), so a retry can run.
 * 4. A claim left IN_PROGRESS for over STALE_SECONDS (by a process that died
 *    under the earlier claim-first protocol) may be taken over by the same
 *    request; its row is locked and replaced, so the original, should it still
 *    be running, cannot complete: never two effects.
 * Keys are scoped to the calling business (or platform client) and kept 24 hours.
 *
 * All of it is one statement: the operation's ledger call (`ledger_move_keyed`,
 * src/ledger/sql/ledger_move_keyed.sql) takes the key (transaction-scoped
 * advisory locks are what duplicates see as "in use"), moves the money, stores
 * the outcome with the key and commits once. The stored response of a success
 * is the posting the ledger returned, rendered again on a replay (same posting,
 * same body); of a refusal, the refusal and the original request id and path,
 * rendered again as the same problem details. A replay is sent with
 * `Idempotent-Replayed: true`.
 */
import { hash } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError, refusalError, toProblem, type Refusal } from '../errors.js';
import type { Config } from '../serviceConfig.js';
import { familyKeys, keyFamilies, openValue, sealValue, type Sealed, type SealingKeys } from '../secrets/sealing.js';

const KEY_TTL_HOURS = 24;

/** What the kept answers' AES keys are derived for (under their family's secrets, and under the card data secrets of its predecessor). */
const REPLAY_SEAL = 'idempotency-replay-seal';

/**
 * The keys that seal kept answers holding a secret (`keyedTransaction`'s `seal`): the
 * idempotency replay family (IDEMPOTENCY_REPLAY_KEY), with the card data family derived
 * for the same purpose as its predecessor, which sealed them before (a kept answer lives
 * 24 hours). Derived once, at start (src/server.ts), and handed to the HTTP layer in
 * Services.keys. Throws like `sealingKeys` on a malformed configuration.
 */
export async function replayKeys(db: Knex, config: Config): Promise<SealingKeys> {
  const families = keyFamilies(config);
  return familyKeys(db, families.idempotencyReplay, REPLAY_SEAL, await familyKeys(db, families.cardData, REPLAY_SEAL));
}
const STALE_SECONDS = 60;

/** A response as sent on the wire. */
export interface StoredResponse {
  status: number;
  body: unknown;
  contentType?: string;
  /** Headers of the answer itself (a created resource's `Location`), kept and replayed with it. */
  headers?: Record<string, string>;
}

/** Stable JSON (sorted object keys) for hashing request bodies. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + canonical(value[i]);
    return `${out}]`;
  }
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    let out = '{';
    for (let i = 0; i < keys.length; i++) out += `${i ? ',' : ''}${JSON.stringify(keys[i])}:${canonical((value as Record<string, unknown>)[keys[i]])}`;
    return `${out}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * Fingerprint of an operation call: the hex SHA-256 of the canonical JSON of its
 * operationId, path parameters and body (`crypto.hash`, one call, no Hash object).
 */
export function requestHash(operationId: string, path: unknown, body: unknown): string {
  return hash('sha256', canonical({ operationId, path, body }), 'hex');
}

/** What a replay needs to render a stored refusal as it was first sent. */
export interface ProblemContext {
  request_id: string;
  /** The request path (problem details' `instance`). */
  instance: string;
}

/** A typed failure as the response sent (and stored): problem details. */
export function problemResponse(err: AppError, context: ProblemContext): StoredResponse {
  return { status: err.status, body: toProblem(err, context.instance, context.request_id), contentType: 'application/problem+json' };
}

/** A stored response to send again as it is. */
class StoredReplay {
  constructor(readonly response: StoredResponse) {}
}

/** A response as the database keeps it with its key. */
type KeptResponse = Partial<StoredResponse> & { transaction_id?: string; posting?: unknown; refusal?: Refusal; context?: ProblemContext };

/** The key as another request holds it (idempotency_begin). */
interface HeldKey {
  request_hash: string | null;
  state: 'IN_PROGRESS' | 'COMPLETED';
  response?: KeptResponse | null;
}

/**
 * One request's Idempotency-Key, for the operation's database call, which
 * takes it (see the module comment).
 */
export class KeyClaim {
  /** Set by the operation when its database call (which takes the key) is sent. */
  sent = false;
  /** Set when the result is an earlier request's, to be sent as a replay. */
  replayed = false;

  constructor(
    readonly scope: string,
    readonly key: string,
    readonly hash: string,
    readonly context: ProblemContext,
  ) {}

  /** The key's arguments of `ledger_move_keyed` and `idempotency_store`: scope, key, hash, TTL, staleness (seconds), context. */
  sqlArgs(): [string, string, string, number, number, string] {
    return [this.scope, this.key, this.hash, KEY_TTL_HOURS * 3600, STALE_SECONDS, JSON.stringify(this.context)];
  }

  /**
   * What `ledger_move_keyed` returned, for this request: the posting (fresh,
   * or an earlier request's: `replayed`), or throws the refusal (stored
   * already), IDEMPOTENCY_KEY_REUSED, IDEMPOTENCY_KEY_IN_USE (Retry-After: 1)
   * or an earlier request's stored response to send as it is.
   */
  outcome(result: { held?: HeldKey } & KeptResponse): unknown {
    if (result.held) return this.resolveHeld(result.held);
    if (result.refusal) throw refusalError(result.refusal) ?? new Error(`unknown refusal ${JSON.stringify(result.refusal)}`);
    return result.posting;
  }

  private resolveHeld(held: HeldKey): unknown {
    if (held.request_hash !== this.hash) {
      throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request.');
    }
    if (held.state === 'IN_PROGRESS' || !held.response) {
      throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed.', {
        headers: { 'Retry-After': '1' },
      });
    }
    this.replayed = true;
    const kept = held.response;
    // A movement's outcome is kept as {transaction_id}; the ledger adds its posting for a replay (ledger_move_keyed).
    if (kept.transaction_id !== undefined || kept.posting !== undefined) return kept.posting;
    const refused = kept.refusal && kept.context ? refusalError(kept.refusal) : null;
    throw new StoredReplay(refused ? problemResponse(refused, kept.context!) : (kept as StoredResponse));
  }
}

/**
 * Runs `run` at most once per (scope, key, request): `run` passes the KeyClaim
 * to its database call, which takes the key (ledger `move`). Returns its
 * response, with `replayed: true` when it is an earlier request's. A typed
 * failure before the database call (e.g. a sandbox-only operation outside the
 * sandbox) is stored here, as the database call would have stored it.
 */
export async function withIdempotency(
  db: Knex,
  args: { scope: string; key: string; hash: string; context: ProblemContext },
  run: (claim: KeyClaim) => Promise<StoredResponse>,
): Promise<{ response: StoredResponse; replayed: boolean }> {
  const claim = new KeyClaim(args.scope, args.key, args.hash, args.context);
  try {
    const response = await run(claim);
    if (!claim.sent) throw new Error('idempotent operation did not pass its Idempotency-Key to the database');
    return { response, replayed: claim.replayed };
  } catch (err) {
    if (err instanceof StoredReplay) return { response: err.response, replayed: true };
    if (!claim.sent && err instanceof AppError) return storeEarlyFailure(db, claim, err);
    throw err;
  }
}

/** Stores `err` with the key of a request that failed before its database call (then throws it); or answers as the key's holder says. */
async function storeEarlyFailure(db: Knex, claim: KeyClaim, err: AppError): Promise<{ response: StoredResponse; replayed: boolean }> {
  const { rows } = await db.raw('SELECT idempotency_store(?, ?, ?, ?::int, ?::int, ?::jsonb) AS held', [
    ...claim.sqlArgs().slice(0, 5),
    JSON.stringify(problemResponse(err, claim.context)),
  ]);
  if (!rows[0].held) throw err;
  try {
    claim.outcome({ held: rows[0].held });
  } catch (heldErr) {
    if (heldErr instanceof StoredReplay) return { response: heldErr.response, replayed: true };
    throw heldErr;
  }
  // The key holds a posting: the same request once reached the ledger and now fails
  // before it (e.g. the sandbox was turned off since). Answer the failure.
  throw err;
}

/** The business under which the platform's own keys are kept (idempotency_finish). */
const PLATFORM_KEYS = '00000000-0000-0000-0000-000000000000';

/**
 * Runs `write` (a create: a wallet, a label, a webhook endpoint, a business) under `claim`
 * in one transaction with the key, through the kernel's bracket (idempotency_enter and
 * idempotency_leave, src/kernel/sql/idempotency_bracket.sql): the rows it writes and the
 * response it returns commit together with the key, so a retry replays that response and
 * creates nothing. A typed failure of `write` (an AppError: 4xx) is rolled back to a
 * savepoint and kept as its problem details, replayed as it was, as a movement's refusal
 * is. `businessId` is the calling business (null for a platform client, whose keys are kept
 * under the nil UUID). With `seal`, the kept response's body is sealed (src/kernel/secrets/
 * sealing.ts; context `idempotency:<scope>:<key>`): for an answer that holds a secret shown
 * once, such as a new business's client secret. Returns `write`'s response, or the problem of its typed failure;
 * throws what `withIdempotency` turns into a replay, IDEMPOTENCY_KEY_REUSED or
 * IDEMPOTENCY_KEY_IN_USE (Retry-After: 1), and any other error (nothing is kept: a retry runs).
 */
export async function keyedTransaction(
  db: Knex,
  claim: KeyClaim,
  businessId: string | null,
  write: (trx: Knex.Transaction) => Promise<StoredResponse>,
  seal?: SealingKeys,
): Promise<StoredResponse> {
  const [scope, key, hash, ttl, stale] = claim.sqlArgs();
  const business = businessId ?? PLATFORM_KEYS;
  const context = `idempotency:${scope}:${key}`;
  claim.sent = true;
  try {
    return await db.transaction(async (trx) => {
      const { rows } = await trx.raw('SELECT idempotency_enter(?::uuid, ?, ?, ?, ?::int) AS entered', [business, scope, key, hash, stale]);
      const entered = rows[0].entered as { fresh?: boolean; held?: HeldKey };
      if (entered.held) {
        claim.outcome({ held: entered.held });
        // A key that holds a movement's posting was used by another operation: its hash differs, so outcome threw.
        throw new Error('an idempotency key held a posting for a create');
      }
      let response: StoredResponse;
      try {
        response = await trx.transaction((inner) => write(inner));
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        response = problemResponse(err, claim.context);
      }
      const kept = seal ? { status: response.status, contentType: response.contentType, headers: response.headers, sealedBody: sealValue(seal, context, JSON.stringify(response.body)) } : response;
      await trx.raw('SELECT idempotency_leave(?::uuid, ?, ?, ?, ?::int, ?::boolean, ?::jsonb)', [business, scope, key, hash, ttl, entered.fresh === true, JSON.stringify(kept)]);
      return response;
    });
  } catch (err) {
    const sealedBody = err instanceof StoredReplay ? (err.response as { sealedBody?: Sealed }).sealedBody : undefined;
    if (!sealedBody || !seal) throw err;
    const { status, contentType, headers } = (err as StoredReplay).response;
    throw new StoredReplay({ status, contentType, headers, body: JSON.parse(openValue(seal, context, sealedBody)) });
  }
}
