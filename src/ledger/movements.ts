/**
 * Money movements of the closed loop (see the table in the closed-loop
 * document's description): test top-up, fund, payout, transfer, withdrawal,
 * refund and reversal. Each is one call of the ledger (`move`, ledger.ts):
 * one database statement that checks every rule, posts one balanced ledger
 * transaction and updates the balances (and, for a top-up, writes the
 * `topup.complete` event to the event outbox) in one database transaction. The
 * response is rendered from what that statement returned: nothing is read again.
 *
 * With `claim` (the request's Idempotency-Key) the same call also claims the
 * key (http/idempotency.ts).
 *
 * Errors thrown (AppError): WALLET_NOT_FOUND, BUSINESS_NOT_FOUND,
 * TRANSACTION_NOT_FOUND, SAME_WALLET_TRANSFER, TRANSACTION_NOT_REFUNDABLE,
 * REFUND_EXCEEDS_ORIGINAL, TRANSACTION_NOT_REVERSIBLE, TRANSACTION_ALREADY_REVERSED,
 * VALIDATION_ERROR, WALLET_NOT_ACTIVE, INSUFFICIENT_FUNDS, BALANCE_LIMIT_EXCEEDED;
 * with a claim, IDEMPOTENCY_KEY_IN_USE and IDEMPOTENCY_KEY_REUSED.
 */
import type { Knex } from 'knex';
import type { components } from '../../generated/types/closed-loop.js';
import type { KeyClaim } from '../kernel/idempotency/idempotency.js';
import { move, type TransactionType } from './ledger.js';
import { formatMoney } from '../kernel/money.js';
import { postingView, type TransactionView } from './transactions.js';

type Schemas = components['schemas'];
export type RefundView = Schemas['RefundResponse'];

/** The movement of `type`: request body `Req` → its Transaction view, as committed. */
function movement<Req extends object>(type: TransactionType) {
  return async (db: Knex, businessId: string, req: Req, claim?: KeyClaim | null): Promise<TransactionView> =>
    postingView(await move(db, businessId, type, req, claim));
}

/** Fund: operational account → wallet (a wallet load). */
export const createFund = movement<Schemas['FundRequest']>('FUND');

/**
 * The closed loop's payout movement (`createPayout` of the closed-loop document):
 * operational account → wallet, a disbursement that refunds may return. Not the
 * core API's payout to a customer (src/payouts/customerPayouts.ts).
 */
export const createWalletPayout = movement<Schemas['PayoutRequest']>('PAYOUT');

/** Withdrawal: wallet → operational account. */
export const createWithdrawal = movement<Schemas['WithdrawalRequest']>('WITHDRAWAL');

/** Transfer: source wallet → destination wallet of the same business (they must differ). */
export const createTransfer = movement<Schemas['TransferRequest']>('TRANSFER');

/** Sandbox top-up: settlement account → operational account, with the `topup.complete` event emitted (src/events/). */
export const createTopup = movement<Schemas['TopupRequest']>('TOPUP');

/**
 * Reversal: posts the original's amount back from its credit side to its debit
 * side, once. Payouts with refunds cannot be reversed (refund the rest instead).
 */
export const createReversal = movement<Schemas['ReversalRequest']>('REVERSAL');

/**
 * Refund (seed E1): moves `amount` from one wallet back to the operational
 * account. With `original_transaction_id` (a payout, not reversed) it is linked
 * to it, the wallet defaults to the payout's receiver, and the payout's running
 * refunded total may not exceed its amount; the payout row is locked first, so
 * concurrent refunds are capped too. Without it, `wallet_id` is required.
 */
export async function createRefund(db: Knex, businessId: string, req: Schemas['RefundRequest'], claim?: KeyClaim | null): Promise<RefundView> {
  const posting = await move(db, businessId, 'REFUND', req, claim);
  const view = postingView(posting);
  const original = posting.original ?? null;
  return {
    id: view.id,
    amount: view.amount,
    currency: view.currency,
    external_reference: view.external_reference,
    original_transaction_reference: original?.reference ?? null,
    sender_account_number: view.sender_account_number,
    receiver_account_number: view.receiver_account_number,
    notes: view.notes,
    status: 'SUCCESS',
    created_at: view.created_at,
    original_transaction_id: view.original_transaction_id,
    original_transaction_amount: original ? formatMoney(original.amount) : null,
    total_refunded_amount: original ? formatMoney(original.refunded_amount) : null,
  };
}
