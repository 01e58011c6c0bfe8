/**
 * The double-entry ledger, as the service calls it. Every movement of money is
 * one ledger transaction of two entries, a debit and a credit of the same
 * amount (entries sum to zero), written in one database transaction together
 * with the balance updates of both accounts.
 *
 * The ledger itself is PL/pgSQL (src/ledger/sql/: `ledger_move` dispatches by
 * type, `ledger_post` posts): it locks the accounts (a wallet before an account of the
 * business's own, else ascending id: concurrent movements serialise and never deadlock; a refund or reversal locks
 * its original transaction first), checks every rule, posts the entries and
 * updates the balances in ONE statement, so a movement is one database round
 * trip and row locks are held only for that statement and its commit. Balance rules: the settlement account may go below zero (it mirrors
 * money outside the closed loop); a wallet only with can_overdraft; the
 * operational account never. The database repeats these rules as CHECK
 * constraints.
 */
import type { Knex } from 'knex';
import { preparedQuery, preparedStatement } from '../db/knex.js';
import { refusalError, type Refusal } from '../kernel/errors.js';
import type { KeyClaim } from '../kernel/idempotency/idempotency.js';
import type { AccountKind } from './accountNumbers.js';
import { batchedMovements, batcherOf } from './batching.js';
import { reportPosted } from './posted.js';

export type TransactionType =
  | 'TOPUP'
  | 'FUND'
  | 'PAYOUT'
  | 'TRANSFER'
  | 'WITHDRAWAL'
  | 'REFUND'
  | 'REVERSAL'
  | 'CUSTOMER_PAYOUT'
  | 'CUSTOMER_PAYOUT_COMPLETION'
  | 'CUSTOMER_PAYOUT_RETURN'
  | 'CARD_PURCHASE';

/**
 * What `ledger_move` is asked to do: a transaction type, or a movement posting another type
 * (PAYOUT_ACCOUNT_TOPUP posts a TOPUP). The CUSTOMER_PAYOUT types are posted by the payouts
 * capability's own SQL (src/payouts/sql/), which calls the ledger's posting: `ledger_move`
 * raises on them.
 */
export type Movement = TransactionType | 'PAYOUT_ACCOUNT_TOPUP';

/** A row of `accounts`. */
export interface AccountRow {
  id: string;
  business_id: string;
  kind: AccountKind;
  account_number: string;
  currency: string;
  balance: string;
  can_overdraft: boolean;
  status: string;
  name: string | null;
  label_id: string | null;
  external_reference: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A row of `transactions`. */
export interface TransactionRow {
  id: string;
  reference: string;
  business_id: string;
  type: TransactionType;
  status: string;
  amount: string;
  currency: string;
  debit_account_id: string;
  credit_account_id: string;
  external_reference: string | null;
  notes: string | null;
  original_transaction_id: string | null;
  reversal_transaction_id: string | null;
  refunded_amount: string;
  created_at: Date;
}

/**
 * What `ledger_move` returns: the committed transaction row (money as decimal
 * strings, `created_at` as an ISO 8601 string), the account numbers and kinds
 * of both sides, its two entries (debit first; amounts signed) and, for a
 * refund linked to a payout, that payout's reference, amount and new refunded total.
 */
export interface Posting extends Omit<TransactionRow, 'created_at'> {
  created_at: string;
  debit_account_number: string;
  debit_kind: AccountKind;
  credit_account_number: string;
  credit_kind: AccountKind;
  entries: { account_number: string; amount: string; balance_after: string }[];
  original?: { reference: string; amount: string; refunded_amount: string } | null;
}

/** The ledger's answer: a posting, or a refusal (changes nothing). */
type Result = Posting | { refusal: Refusal };

/** The posting of `result`; throws the AppError of a refusal. */
function posted(result: Result): Posting {
  if ('refusal' in result) throw refusalError(result.refusal) ?? new Error(`unknown refusal ${JSON.stringify(result.refusal)}`);
  return result;
}

/**
 * Moves money of business `businessId`: one statement, `ledger_move` with the
 * validated request body `request` (shape per `type`, see src/ledger/sql/ledger_move.sql),
 * or, with `claim` (the request's Idempotency-Key), `ledger_move_keyed`,
 * which also takes the key and stores the outcome with it. Both are named
 * prepared statements. Returns the posting as committed.
 *
 * Throws AppError for every refusal of the ledger (VALIDATION_ERROR,
 * WALLET_NOT_FOUND, BUSINESS_NOT_FOUND, TRANSACTION_NOT_FOUND, WALLET_NOT_ACTIVE,
 * INSUFFICIENT_FUNDS, BALANCE_LIMIT_EXCEEDED, SAME_WALLET_TRANSFER,
 * TRANSACTION_NOT_REFUNDABLE, REFUND_EXCEEDS_ORIGINAL, TRANSACTION_NOT_REVERSIBLE,
 * TRANSACTION_ALREADY_REVERSED); with a claim, what `claim.outcome` gives (a
 * replayed posting) or throws (409, 422, a stored response).
 */
export async function move(db: Knex, businessId: string, type: Movement, request: object, claim?: KeyClaim | null): Promise<Posting> {
  return outcomeOf(await moveRaw(db, businessId, type, request, claim), claim);
}

/**
 * The ledger's answer as the database gave it (see `move`), for a caller that acts on it in the same
 * transaction: `ledger_move`'s, or under a key `ledger_move_keyed`'s (the key held by another request,
 * the posting, or the refusal with the request's context).
 */
export type RawOutcome = Result | { held: unknown } | { posting: Posting } | { refusal: Refusal; context: unknown };

const LEDGER_MOVE = preparedStatement('ledger_move', 'SELECT ledger_move(?::uuid, ?, ?::jsonb) AS result');
const LEDGER_MOVE_KEYED = preparedStatement(
  'ledger_move_keyed',
  'SELECT ledger_move_keyed(?::uuid, ?, ?, ?, ?::int, ?::int, ?::jsonb, ?, ?::jsonb) AS outcome',
);

/**
 * `move`'s database call alone: nothing is interpreted or thrown but database errors.
 * On the pool, a batched movement (`batchedMovements`) goes through the pool's batcher
 * (./batching.ts), which answers exactly what this movement alone would have been
 * answered; inside a caller's transaction it is that transaction's own statement. A fresh
 * posting is reported here, whichever statement posted it (./posted.ts).
 */
export async function moveRaw(db: Knex, businessId: string, type: Movement, request: object, claim?: KeyClaim | null): Promise<RawOutcome> {
  let raw: RawOutcome;
  if (!db.isTransaction && (await batchedMovements(db)).has(type)) {
    if (claim) claim.sent = true;
    const batcher = batcherOf(db, (t, b, r, c) => postAlone(t, b, r, c, db));
    raw = (await batcher.post(businessId, type, request, claim)) as RawOutcome;
  } else {
    raw = await postAlone(type, businessId, request, claim, db);
  }
  reportPosted(db, [freshPosting(raw)?.type]);
  return raw;
}

/** One movement in one statement: `ledger_move`, or with `claim` `ledger_move_keyed`. */
async function postAlone(type: string, businessId: string, request: object, claim: KeyClaim | null | undefined, db: Knex): Promise<RawOutcome> {
  if (!claim) {
    const rows = await preparedQuery<{ result: Result }>(db, LEDGER_MOVE, [businessId, type, JSON.stringify(request)]);
    return rows[0].result;
  }
  claim.sent = true;
  const rows = await preparedQuery<{ outcome: RawOutcome }>(db, LEDGER_MOVE_KEYED, [businessId, ...claim.sqlArgs(), type, JSON.stringify(request)]);
  return rows[0].outcome;
}

/** The posting `raw` made just now (not a refusal, not an earlier request's), or null. */
export function freshPosting(raw: RawOutcome): Posting | null {
  if ('held' in raw || 'refusal' in raw) return null;
  if ('posting' in raw) return raw.posting ?? null;
  return raw as Posting;
}

/** The posting of a `moveRaw` answer; throws what `move` throws. */
export function outcomeOf(raw: RawOutcome, claim?: KeyClaim | null): Posting {
  return claim ? (claim.outcome(raw as never) as Posting) : posted(raw as Result);
}
