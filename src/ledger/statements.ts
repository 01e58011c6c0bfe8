/**
 * Wallet statements: for a period [from, to), the opening balance (balance
 * after the last entry before `from`), every entry in the period oldest first
 * with the running balance after it, and the closing balance. Rendered as the
 * document's `WalletStatement` JSON or as CSV (RFC 4180, via csv-stringify).
 */
import { stringify } from 'csv-stringify/sync';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/closed-loop.js';
import { AppError, invalidField } from '../kernel/errors.js';
import { Decimal, formatMoney } from '../kernel/money.js';

type Schemas = components['schemas'];
export type StatementView = Schemas['WalletStatement'];

/**
 * The statement of wallet `walletId` for [from, to); `from` defaults to the
 * wallet's creation, `to` to now. More than `maxEntries` entries (config
 * STATEMENT_MAX_ENTRIES) is STATEMENT_TOO_LARGE. Throws WALLET_NOT_FOUND, VALIDATION_ERROR
 * (`from` after `to`) and STATEMENT_TOO_LARGE.
 */
export async function getWalletStatement(
  db: Knex,
  businessId: string,
  walletId: string,
  period: { from?: string; to?: string },
  maxEntries: number,
): Promise<StatementView> {
  const wallet = await db('accounts').where({ id: walletId, business_id: businessId, kind: 'WALLET' }).first();
  if (!wallet) throw new AppError('WALLET_NOT_FOUND', `No wallet ${walletId} for this business.`);
  const from = period.from ? new Date(period.from) : (wallet.created_at as Date);
  const to = period.to ? new Date(period.to) : new Date();
  if (from > to) throw invalidField('/query/from', 'must not be after to');

  const before = await db('ledger_entries').where('account_id', walletId).where('created_at', '<', from).orderBy('id', 'desc').first('balance_after');
  const rows = await db('ledger_entries as e')
    .join('transactions as t', 't.id', 'e.transaction_id')
    .where('e.account_id', walletId)
    .where('e.created_at', '>=', from)
    .where('e.created_at', '<', to)
    .orderBy('e.id')
    .limit(maxEntries + 1)
    .select('e.amount', 'e.balance_after', 'e.created_at', 't.id as transaction_id', 't.reference', 't.type');
  if (rows.length > maxEntries) {
    throw new AppError('STATEMENT_TOO_LARGE', `More than ${maxEntries} entries fall in the period; ask for a shorter one.`);
  }
  const opening = new Decimal(before?.balance_after ?? 0);
  let debits = new Decimal(0);
  let credits = new Decimal(0);
  const entries: Schemas['StatementEntry'][] = rows.map((r) => {
    const amount = new Decimal(r.amount);
    if (amount.isNegative()) debits = debits.plus(amount.abs());
    else credits = credits.plus(amount);
    return {
      transaction_id: r.transaction_id,
      reference: r.reference,
      type: r.type,
      direction: amount.isNegative() ? 'DEBIT' : 'CREDIT',
      amount: formatMoney(amount.abs()),
      balance_after: formatMoney(r.balance_after),
      created_at: (r.created_at as Date).toISOString(),
    };
  });
  const closing = entries.length ? entries[entries.length - 1].balance_after : formatMoney(opening);
  return {
    wallet_id: wallet.id,
    account_number: wallet.account_number,
    currency: wallet.currency,
    from: from.toISOString(),
    to: to.toISOString(),
    opening_balance: formatMoney(opening),
    closing_balance: closing,
    total_debits: formatMoney(debits),
    total_credits: formatMoney(credits),
    entries,
  };
}

/** CSV of a statement: header line, OPENING_BALANCE row, one row per entry, CLOSING_BALANCE row. */
export function statementToCsv(statement: StatementView): string {
  const rows: string[][] = [
    [statement.from, '', '', 'OPENING_BALANCE', '', '', statement.opening_balance],
    ...statement.entries.map((e) => [e.created_at, e.transaction_id, e.reference, e.type, e.direction, e.amount, e.balance_after]),
    [statement.to, '', '', 'CLOSING_BALANCE', '', '', statement.closing_balance],
  ];
  return stringify(rows, {
    header: true,
    columns: ['created_at', 'transaction_id', 'reference', 'type', 'direction', 'amount', 'balance_after'],
  });
}
