/**
 * Money movements of the closed loop (see the table in the closed-loop
 * document's description): test top-up, fund, payout, transfer, withdrawal,
 * refund and reversal. Each is one ledger transaction posted by
 * `postLedgerTransaction` inside one database transaction.
 *
 * Errors thrown (AppError): WALLET_NOT_FOUND, TRANSACTION_NOT_FOUND,
 * SAME_WALLET_TRANSFER, TRANSACTION_NOT_REFUNDABLE, REFUND_EXCEEDS_ORIGINAL,
 * TRANSACTION_NOT_REVERSIBLE, TRANSACTION_ALREADY_REVERSED, VALIDATION_ERROR,
 * plus those of `postLedgerTransaction`.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/closed-loop.js';
import { AppError, invalidField } from '../errors.js';
import type { AccountKind } from './accountNumbers.js';
import { postLedgerTransaction, type AccountRow, type TransactionRow, type TransactionType } from './ledger.js';
import { Decimal, formatMoney, parsePositiveAmount } from './money.js';
import { getTransaction, type TransactionView } from './transactions.js';

type Schemas = components['schemas'];
export type RefundView = Schemas['RefundResponse'];

/** The business's operational or settlement account. */
async function businessAccount(db: Knex, businessId: string, kind: Exclude<AccountKind, 'WALLET'>): Promise<AccountRow> {
  const account = await db('accounts').where({ business_id: businessId, kind }).first();
  if (!account) throw new AppError('BUSINESS_NOT_FOUND', `No business ${businessId}.`);
  return account;
}

/** The wallet `walletId` of the business; throws WALLET_NOT_FOUND (also for another business's wallet). */
async function walletAccount(db: Knex, businessId: string, walletId: string): Promise<AccountRow> {
  const wallet = await db('accounts').where({ id: walletId, business_id: businessId, kind: 'WALLET' }).first();
  if (!wallet) throw new AppError('WALLET_NOT_FOUND', `No wallet ${walletId} for this business.`);
  return wallet;
}

interface CommonFields {
  amount: string;
  currency?: string;
  external_reference?: string;
  notes?: string;
}

async function post(
  db: Knex,
  businessId: string,
  type: TransactionType,
  sides: { debit: AccountRow; credit: AccountRow },
  fields: CommonFields,
): Promise<TransactionView> {
  const amount = parsePositiveAmount(fields.amount);
  const row = await db.transaction((trx) =>
    postLedgerTransaction(trx, {
      businessId,
      type,
      amount,
      currency: fields.currency ?? sides.credit.currency,
      debitAccountId: sides.debit.id,
      creditAccountId: sides.credit.id,
      externalReference: fields.external_reference,
      notes: fields.notes,
    }),
  );
  return getTransaction(db, businessId, row.id);
}

/** Operational account → wallet, as a FUND (a wallet load) or a PAYOUT (a disbursement; refundable). */
async function fromOperational(db: Knex, businessId: string, type: 'FUND' | 'PAYOUT', req: Schemas['FundRequest']): Promise<TransactionView> {
  const credit = await walletAccount(db, businessId, req.wallet_id);
  return post(db, businessId, type, { debit: await businessAccount(db, businessId, 'OPERATIONAL'), credit }, req);
}

/** Fund: operational account → wallet (a wallet load). */
export const createFund = (db: Knex, businessId: string, req: Schemas['FundRequest']) => fromOperational(db, businessId, 'FUND', req);

/** Payout: operational account → wallet (a disbursement; refundable). */
export const createPayout = (db: Knex, businessId: string, req: Schemas['PayoutRequest']) => fromOperational(db, businessId, 'PAYOUT', req);

/** Withdrawal: wallet → operational account. */
export async function createWithdrawal(db: Knex, businessId: string, req: Schemas['WithdrawalRequest']): Promise<TransactionView> {
  const debit = await walletAccount(db, businessId, req.wallet_id);
  return post(db, businessId, 'WITHDRAWAL', { debit, credit: await businessAccount(db, businessId, 'OPERATIONAL') }, req);
}

/** Transfer: source wallet → destination wallet of the same business. */
export async function createTransfer(db: Knex, businessId: string, req: Schemas['TransferRequest']): Promise<TransactionView> {
  if (req.source_wallet_id === req.destination_wallet_id) {
    throw new AppError('SAME_WALLET_TRANSFER', 'The source and destination wallets must differ.');
  }
  const debit = await walletAccount(db, businessId, req.source_wallet_id);
  const credit = await walletAccount(db, businessId, req.destination_wallet_id);
  return post(db, businessId, 'TRANSFER', { debit, credit }, req);
}

/**
 * Sandbox top-up: settlement account → operational account, with the
 * `topup.complete` event written to the outbox in the same database transaction.
 */
export async function createTopup(db: Knex, businessId: string, req: Schemas['TopupRequest']): Promise<TransactionView> {
  const debit = await businessAccount(db, businessId, 'SETTLEMENT');
  const credit = await businessAccount(db, businessId, 'OPERATIONAL');
  const amount = parsePositiveAmount(req.amount);
  const row = await db.transaction(async (trx) => {
    const tx = await postLedgerTransaction(trx, {
      businessId,
      type: 'TOPUP',
      amount,
      currency: req.currency ?? credit.currency,
      debitAccountId: debit.id,
      creditAccountId: credit.id,
      externalReference: req.external_reference,
    });
    const data: Schemas['TopupCompleteData'] = {
      transaction_id: tx.id,
      business_id: businessId,
      amount: formatMoney(tx.amount),
      currency: tx.currency as Schemas['Currency'],
      completed_at: tx.created_at.toISOString(),
    };
    await trx('outbox_events').insert({ id: randomUUID(), business_id: businessId, code: 'topup.complete', data: JSON.stringify(data) });
    return tx;
  });
  return getTransaction(db, businessId, row.id);
}

/** Locks and returns the business's transaction `id`; throws TRANSACTION_NOT_FOUND. */
async function lockTransaction(trx: Knex.Transaction, businessId: string, id: string): Promise<TransactionRow> {
  const row = await trx('transactions').where({ id, business_id: businessId }).forUpdate().first();
  if (!row) throw new AppError('TRANSACTION_NOT_FOUND', `No transaction ${id} for this business.`);
  return row;
}

/**
 * Refund (seed E1): moves `amount` from one wallet back to the operational
 * account. With `original_transaction_id` (a payout, not reversed) it is linked
 * to it, the wallet defaults to the payout's receiver, and the payout's running
 * refunded total may not exceed its amount; the payout row is locked first, so
 * concurrent refunds are capped too.
 */
export async function createRefund(db: Knex, businessId: string, req: Schemas['RefundRequest']): Promise<RefundView> {
  const amount = parsePositiveAmount(req.amount);
  if (!req.original_transaction_id && !req.wallet_id) {
    throw invalidField('/wallet_id', 'is required when original_transaction_id is absent');
  }
  const { refund, original } = await db.transaction(async (trx) => {
    let original: TransactionRow | null = null;
    if (req.original_transaction_id) {
      original = await lockTransaction(trx, businessId, req.original_transaction_id);
      if (original.type !== 'PAYOUT') {
        throw new AppError('TRANSACTION_NOT_REFUNDABLE', `Only payouts can be refunded; ${original.reference} is a ${original.type}.`);
      }
      if (original.reversal_transaction_id) {
        throw new AppError('TRANSACTION_NOT_REFUNDABLE', `Payout ${original.reference} has been reversed.`);
      }
      const total = new Decimal(original.refunded_amount).plus(amount);
      if (total.gt(original.amount)) {
        throw new AppError(
          'REFUND_EXCEEDS_ORIGINAL',
          `Payout ${original.reference} of ${formatMoney(original.amount)} has ${formatMoney(original.refunded_amount)} refunded; ${formatMoney(amount)} more would exceed it.`,
        );
      }
      await trx('transactions').where({ id: original.id }).update({ refunded_amount: total.toFixed(2) });
      original.refunded_amount = total.toFixed(2);
    }
    const wallet = await walletAccount(trx, businessId, req.wallet_id ?? original!.credit_account_id);
    const operational = await businessAccount(trx, businessId, 'OPERATIONAL');
    const refund = await postLedgerTransaction(trx, {
      businessId,
      type: 'REFUND',
      amount,
      currency: wallet.currency,
      debitAccountId: wallet.id,
      creditAccountId: operational.id,
      externalReference: req.external_reference,
      notes: req.notes,
      originalTransactionId: original?.id ?? null,
    });
    return { refund, original };
  });
  const view = await getTransaction(db, businessId, refund.id);
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
    original_transaction_id: original?.id ?? null,
    original_transaction_amount: original ? formatMoney(original.amount) : null,
    total_refunded_amount: original ? formatMoney(original.refunded_amount) : null,
  };
}

const REVERSIBLE: TransactionType[] = ['FUND', 'PAYOUT', 'TRANSFER', 'WITHDRAWAL'];

/**
 * Reversal: posts the original's amount back from its credit side to its debit
 * side, once. Payouts with refunds cannot be reversed (refund the rest instead).
 */
export async function createReversal(db: Knex, businessId: string, req: Schemas['ReversalRequest']): Promise<TransactionView> {
  const row = await db.transaction(async (trx) => {
    const original = await lockTransaction(trx, businessId, req.original_transaction_id);
    if (original.reversal_transaction_id) {
      throw new AppError('TRANSACTION_ALREADY_REVERSED', `Transaction ${original.reference} has already been reversed.`);
    }
    if (!REVERSIBLE.includes(original.type)) {
      throw new AppError('TRANSACTION_NOT_REVERSIBLE', `A ${original.type} cannot be reversed; reversible types: ${REVERSIBLE.join(', ')}.`);
    }
    if (new Decimal(original.refunded_amount).gt(0)) {
      throw new AppError('TRANSACTION_NOT_REVERSIBLE', `Payout ${original.reference} has refunds; refund the remainder instead.`);
    }
    const reversal = await postLedgerTransaction(trx, {
      businessId,
      type: 'REVERSAL',
      amount: new Decimal(original.amount),
      currency: original.currency,
      debitAccountId: original.credit_account_id,
      creditAccountId: original.debit_account_id,
      externalReference: req.external_reference,
      notes: req.notes,
      originalTransactionId: original.id,
    });
    await trx('transactions').where({ id: original.id }).update({ reversal_transaction_id: reversal.id });
    return reversal;
  });
  return getTransaction(db, businessId, row.id);
}
