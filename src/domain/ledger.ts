/**
 * The double-entry ledger, as the service calls it. Every movement of money is
 * one ledger transaction of two entries, a debit and a credit of the same
 * amount (entries sum to zero), written in one database transaction together
 * with the balance updates of both accounts.
 *
 * The ledger itself is PL/pgSQL (src/db/migrations/002_ledger_posting.ts and
 * 003_ledger_movements.ts): `ledger_move` locks the accounts (ascending id
 * order: concurrent movements serialise and never deadlock; a refund or
 * reversal locks its original transaction first), checks every rule, posts the
 * entries and updates the balances in ONE statement, so a movement is one
 * database round trip and row locks are held only for that statement and its
 * commit. Balance rules: the settlement account may go below zero (it mirrors
 * money outside the closed loop); a wallet only with can_overdraft; the
 * operational account never. The database repeats these rules as CHECK
 * constraints.
 */
import type { Knex } from 'knex';
import { AppError, ERROR_STATUS, invalidField, type ErrorCode } from '../errors.js';
import type { KeyClaim } from '../http/idempotency.js';
import type { AccountKind } from './accountNumbers.js';

export type TransactionType = 'TOPUP' | 'FUND' | 'PAYOUT' | 'TRANSFER' | 'WITHDRAWAL' | 'REFUND' | 'REVERSAL';

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

/** SQLSTATE of the ledger's refusals (ledger_refuse); DETAIL is {code, detail, pointer}. */
const REFUSAL = 'LR000';

/** The AppError a ledger refusal stands for, or `err` unchanged when it is something else. */
function fromDatabase(err: unknown): unknown {
  const e = err as { code?: string; detail?: string };
  if (e?.code !== REFUSAL || !e.detail) return err;
  const refusal = JSON.parse(e.detail) as { code: string; detail: string; pointer: string | null };
  if (!(refusal.code in ERROR_STATUS)) return err;
  return refusal.pointer ? invalidField(refusal.pointer, refusal.detail) : new AppError(refusal.code as ErrorCode, refusal.detail);
}

/**
 * Moves money of business `businessId`: one call of `ledger_move` with the
 * validated request body `request` (shape per `type`, see 003_ledger_movements),
 * or, with `claim`, of `ledger_move_once`, which also claims the request's
 * Idempotency-Key in the same round trip. Returns the posting as committed.
 *
 * Throws AppError for every refusal of the ledger (VALIDATION_ERROR,
 * WALLET_NOT_FOUND, BUSINESS_NOT_FOUND, TRANSACTION_NOT_FOUND, WALLET_NOT_ACTIVE,
 * INSUFFICIENT_FUNDS, BALANCE_LIMIT_EXCEEDED, SAME_WALLET_TRANSFER,
 * TRANSACTION_NOT_REFUNDABLE, REFUND_EXCEEDS_ORIGINAL, TRANSACTION_NOT_REVERSIBLE,
 * TRANSACTION_ALREADY_REVERSED); with a claim whose key an earlier request
 * holds, whatever `claim.resolveHeld` gives (a replayed posting) or throws.
 */
export async function move(db: Knex, businessId: string, type: TransactionType, request: object, claim?: KeyClaim | null): Promise<Posting> {
  try {
    if (!claim) {
      const { rows } = await db.raw('SELECT ledger_move(?::uuid, ?, ?::jsonb) AS posting', [businessId, type, JSON.stringify(request)]);
      return rows[0].posting as Posting;
    }
    claim.sent = true;
    const { rows } = await db.raw('CALL ledger_move_once(NULL::jsonb, ?::uuid, ?, ?, ?, ?::int, ?::int, ?::uuid, ?, ?::jsonb)', [
      ...claim.sqlArgs(),
      businessId,
      type,
      JSON.stringify(request),
    ]);
    const outcome = rows[0].outcome as { posting?: Posting; held?: unknown };
    return outcome.posting ?? (claim.resolveHeld(outcome.held) as Posting);
  } catch (err) {
    throw fromDatabase(err);
  }
}
