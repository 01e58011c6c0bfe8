/**
 * The double-entry ledger. Every movement of money is one ledger transaction
 * of two entries, a debit and a credit of the same amount (entries sum to
 * zero), written in the caller's database transaction together with the
 * balance updates of both accounts.
 *
 * Concurrency: both account rows are locked with SELECT … FOR UPDATE in
 * ascending id order, so concurrent movements over the same accounts serialise
 * and never deadlock. Callers that also lock a transaction row (refund,
 * reversal) lock it before calling `postLedgerTransaction`.
 * Balance rules: the settlement account may go below zero (it mirrors money
 * outside the closed loop); a wallet only with can_overdraft; the operational
 * account never. The database repeats these rules as CHECK constraints.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError } from '../errors.js';
import type { AccountKind } from './accountNumbers.js';
import { Decimal, formatMoney, MAX_BALANCE } from './money.js';

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

export interface PostingRequest {
  businessId: string;
  type: TransactionType;
  amount: Decimal;
  currency: string;
  debitAccountId: string;
  creditAccountId: string;
  externalReference?: string | null;
  notes?: string | null;
  originalTransactionId?: string | null;
}

function describe(account: AccountRow): string {
  return account.kind === 'WALLET' ? `Wallet ${account.account_number}` : `The ${account.kind.toLowerCase()} account ${account.account_number}`;
}

/**
 * Posts one balanced ledger transaction inside `trx`: locks both accounts,
 * checks status and balance rules, inserts the transaction and its two
 * entries (each with the balance after it) and updates both balances.
 *
 * Throws AppError WALLET_NOT_ACTIVE (a wallet side is not ACTIVE),
 * INSUFFICIENT_FUNDS (the debit would take a protected balance below 0.00),
 * BALANCE_LIMIT_EXCEEDED (a balance would leave numeric(20,2)).
 */
export async function postLedgerTransaction(trx: Knex.Transaction, req: PostingRequest): Promise<TransactionRow> {
  const ids = [req.debitAccountId, req.creditAccountId].sort();
  const locked: AccountRow[] = await trx('accounts').whereIn('id', ids).orderBy('id').forUpdate().select('*');
  const debit = locked.find((a) => a.id === req.debitAccountId);
  const credit = locked.find((a) => a.id === req.creditAccountId);
  if (!debit || !credit || debit.business_id !== req.businessId || credit.business_id !== req.businessId) {
    throw new Error('ledger posting across businesses or to unknown accounts');
  }
  for (const account of [debit, credit]) {
    if (account.kind === 'WALLET' && account.status !== 'ACTIVE') {
      throw new AppError('WALLET_NOT_ACTIVE', `${describe(account)} is ${account.status}; only ACTIVE wallets move money.`);
    }
  }
  const debitAfter = new Decimal(debit.balance).minus(req.amount);
  const creditAfter = new Decimal(credit.balance).plus(req.amount);
  const mayGoNegative = debit.kind === 'SETTLEMENT' || (debit.kind === 'WALLET' && debit.can_overdraft);
  if (debitAfter.isNegative() && !mayGoNegative) {
    throw new AppError(
      'INSUFFICIENT_FUNDS',
      `${describe(debit)} has ${formatMoney(debit.balance)} ${debit.currency}; ${formatMoney(req.amount)} ${req.currency} was requested.`,
    );
  }
  if (debitAfter.abs().gte(MAX_BALANCE) || creditAfter.abs().gte(MAX_BALANCE)) {
    throw new AppError('BALANCE_LIMIT_EXCEEDED', `The movement would take a balance beyond ±${MAX_BALANCE.minus(0.01).toFixed(2)}.`);
  }

  const { rows } = await trx.raw("SELECT 'TXN' || lpad(nextval('transaction_reference_seq')::text, 12, '0') AS reference");
  const [transaction] = (await trx('transactions')
    .insert({
      id: randomUUID(),
      reference: rows[0].reference,
      business_id: req.businessId,
      type: req.type,
      status: 'SUCCESS',
      amount: req.amount.toFixed(2),
      currency: req.currency,
      debit_account_id: debit.id,
      credit_account_id: credit.id,
      external_reference: req.externalReference ?? null,
      notes: req.notes ?? null,
      original_transaction_id: req.originalTransactionId ?? null,
    })
    .returning('*')) as TransactionRow[];
  await trx('ledger_entries').insert([
    { transaction_id: transaction.id, account_id: debit.id, amount: req.amount.negated().toFixed(2), balance_after: debitAfter.toFixed(2) },
    { transaction_id: transaction.id, account_id: credit.id, amount: req.amount.toFixed(2), balance_after: creditAfter.toFixed(2) },
  ]);
  const now = trx.fn.now(3);
  await trx('accounts').where({ id: debit.id }).update({ balance: debitAfter.toFixed(2), updated_at: now });
  await trx('accounts').where({ id: credit.id }).update({ balance: creditAfter.toFixed(2), updated_at: now });
  return transaction;
}
