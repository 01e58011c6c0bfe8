/**
 * Reading ledger transactions: one, a page of the business's, or a page of
 * one wallet's (those that debit or credit it). Shapes are the closed-loop
 * document's `Transaction` and `TransactionList`.
 */
import type { Knex } from 'knex';
import { Decimal } from 'decimal.js';
import type { components } from '../../generated/types/closed-loop.js';
import { AppError } from '../kernel/errors.js';
import type { Posting, TransactionRow } from './ledger.js';
import { formatMoney } from '../kernel/money.js';
import { decodeCursor, paginate, type Page, type PageQuery } from '../kernel/pagination.js';
import type { CsvColumn } from '../kernel/csv.js';

export type TransactionView = components['schemas']['Transaction'];
type TransactionType = components['schemas']['TransactionType'];

/** A transaction row joined with the account numbers and kinds of both sides. */
interface JoinedRow extends TransactionRow {
  debit_account_number: string;
  debit_kind: string;
  credit_account_number: string;
  credit_kind: string;
}

/**
 * `from` (business `businessId`'s transactions as `t`) with both sides' account numbers and
 * kinds, each account looked up by its key under the business, once per row. The business
 * is named as a value, not only as `t.business_id`: distributed by business
 * (docs/scale-out.md), each table of the statement is then known to be on that business's
 * node, and the whole statement is sent there. A lookup, not a
 * join: joined, a page of a few rows is planned, once the ledger has grown, as a hash of all
 * the business's accounts for each side, so its cost grows with the business instead of the
 * page; a subquery with LIMIT is not merged into the join, so each row
 * takes one index step.
 */
function joined(db: Knex, businessId: string, from: Knex.QueryBuilder = db('transactions as t')): Knex.QueryBuilder {
  const side = (prefix: 'debit' | 'credit') =>
    `CROSS JOIN LATERAL (SELECT account_number AS ${prefix}_account_number, kind AS ${prefix}_kind FROM accounts
       WHERE id = t.${prefix}_account_id AND business_id = ? LIMIT 1) AS ${prefix[0]}a`;
  return from.joinRaw(side('debit'), [businessId]).joinRaw(side('credit'), [businessId]).select('t.*', 'da.debit_account_number', 'da.debit_kind', 'ca.credit_account_number', 'ca.credit_kind');
}

type EntryRow = { account_number: string; amount: string; balance_after: string };

/** The API view of a transaction row joined with both sides, and its entries (oldest first, amounts signed). */
function toView(r: Omit<JoinedRow, 'created_at'> & { created_at: Date | string }, entries: EntryRow[]): TransactionView {
  return {
    id: r.id,
    reference: r.reference,
    business_id: r.business_id,
    type: r.type,
    status: r.status as TransactionView['status'],
    amount: formatMoney(r.amount),
    currency: r.currency as TransactionView['currency'],
    sender_account_number: r.debit_account_number,
    receiver_account_number: r.credit_account_number,
    source_wallet_id: r.debit_kind === 'WALLET' ? r.debit_account_id : null,
    destination_wallet_id: r.credit_kind === 'WALLET' ? r.credit_account_id : null,
    external_reference: r.external_reference,
    notes: r.notes,
    original_transaction_id: r.original_transaction_id,
    reversal_transaction_id: r.reversal_transaction_id,
    refunded_amount: formatMoney(r.refunded_amount),
    entries: entries.map((e) => ({
      account_number: e.account_number,
      direction: e.amount.startsWith('-') ? ('DEBIT' as const) : ('CREDIT' as const),
      amount: formatMoney(e.amount.replace('-', '')),
      balance_after: formatMoney(e.balance_after),
    })),
    created_at: new Date(r.created_at).toISOString(),
  };
}

/** The API view of a posting, as the ledger returned it when it committed (no read). */
export function postingView(posting: Posting): TransactionView {
  return toView(posting, posting.entries);
}

/**
 * Maps joined rows, all of one business (every caller filters by it), to API views, loading
 * all their entries in one query under that business (its index `(business_id,
 * transaction_id)`). An entry's account is its transaction's debit or credit account, whose
 * number the joined row holds: joining `accounts` again is planned as a hash of all the
 * business's accounts, most of a page's cost.
 */
async function toViews(db: Knex, rows: JoinedRow[]): Promise<TransactionView[]> {
  if (!rows.length) return [];
  const businessId = rows[0]!.business_id;
  const entries: { transaction_id: string; account_id: string; amount: string; balance_after: string }[] = await db('ledger_entries')
    .where('business_id', businessId)
    .whereIn('transaction_id', rows.map((r) => r.id))
    .orderBy('amount') // the debit (negative) before the credit
    .select('transaction_id', 'account_id', 'amount', 'balance_after');
  return rows.map((r) =>
    toView(
      r,
      entries
        .filter((e) => e.transaction_id === r.id)
        .map((e) => ({ ...e, account_number: e.account_id === r.debit_account_id ? r.debit_account_number : r.credit_account_number })),
    ),
  );
}

/**
 * The transaction `id` of the business (or, with `by: 'reference'`, the one whose
 * `TXN…` reference is `id`: the core API's getTransactionDetails). Throws
 * `notFound` (default TRANSACTION_NOT_FOUND), also for another business's transaction.
 */
export async function getTransaction(
  db: Knex,
  businessId: string,
  id: string,
  opts: { type?: TransactionType; notFound?: 'TRANSACTION_NOT_FOUND' | 'PAYOUT_NOT_FOUND'; by?: 'id' | 'reference' } = {},
): Promise<TransactionView> {
  const query = joined(db, businessId).where({ [`t.${opts.by ?? 'id'}`]: id, 't.business_id': businessId });
  if (opts.type) query.where('t.type', opts.type);
  const row = (await query.first()) as JoinedRow | undefined;
  const code = opts.notFound ?? 'TRANSACTION_NOT_FOUND';
  if (!row) throw new AppError(code, `No ${code === 'PAYOUT_NOT_FOUND' ? 'payout' : 'transaction'} ${id} for this business.`);
  return (await toViews(db, [row]))[0];
}

export interface TransactionFilter extends PageQuery {
  type?: TransactionType;
  status?: string;
  created_from?: string;
  created_to?: string;
  /** Inclusive bounds on `amount`, decimal strings in major units (the documents' Amount). */
  amount_min?: string;
  amount_max?: string;
  /** Only transactions that debit or credit this account. */
  accountId?: string;
}

/**
 * Applies the filters other than the account to `query` (columns of `transactions` under
 * `prefix`). The amount bounds are compared as `numeric` in PostgreSQL (the strings are
 * passed as they came, never through a JS number). Throws VALIDATION_ERROR when
 * `amount_min` is above `amount_max`: an inverted range is a mistake, not an empty search.
 */
function filtered(query: Knex.QueryBuilder, filter: TransactionFilter, prefix: string): Knex.QueryBuilder {
  if (filter.amount_min && filter.amount_max && new Decimal(filter.amount_min).gt(filter.amount_max)) {
    throw new AppError('VALIDATION_ERROR', `amount_min (${filter.amount_min}) is above amount_max (${filter.amount_max}).`, {
      errors: [{ pointer: '/query/amount_min', detail: 'must not be above amount_max' }],
    });
  }
  if (filter.amount_min) query.whereRaw(`${prefix}amount >= ?::numeric`, [filter.amount_min]);
  if (filter.amount_max) query.whereRaw(`${prefix}amount <= ?::numeric`, [filter.amount_max]);
  if (filter.type) query.where(`${prefix}type`, filter.type);
  if (filter.status) query.where(`${prefix}status`, filter.status);
  if (filter.created_from) query.where(`${prefix}created_at`, '>=', new Date(filter.created_from));
  if (filter.created_to) query.where(`${prefix}created_at`, '<', new Date(filter.created_to));
  return query;
}

/**
 * One page of transactions past the cursor (and one more, which tells whether more follow),
 * newest first, as the `t` of `joined`:
 * - of the business: one index range of (business_id, created_at, id);
 * - of one account: those that debit it and those that credit it, each an index range
 *   ((debit_account_id, created_at, id) and (credit_account_id, created_at, id)), merged.
 *   An `OR` over both columns is planned as a bitmap of both indexes, which reads every
 *   transaction of the account and sorts them, for a busy wallet hundreds of thousands.
 * A page then costs the same however many transactions there are, and its accounts are
 * looked up for its rows only (`joined`).
 */
function pageOfTransactions(db: Knex, businessId: string, filter: TransactionFilter): Knex.QueryBuilder {
  const after = filter.cursor ? decodeCursor(filter.cursor) : null;
  const range = (where: Record<string, string>) => {
    const query = filtered(db('transactions').where(where), filter, '');
    if (after) query.whereRaw('(created_at, id) < (?, ?)', [after.createdAt, after.id]);
    return query
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit((filter.limit ?? 20) + 1)
      .select('*');
  };
  if (!filter.accountId) return db.from(db.raw('(?) AS t', [range({ business_id: businessId })]));
  const side = (column: 'debit_account_id' | 'credit_account_id') => range({ business_id: businessId, [column]: filter.accountId! });
  return db.from(db.raw('((?) UNION ALL (?)) AS t', [side('debit_account_id'), side('credit_account_id')]));
}

/** A page of the business's transactions (with `accountId`, of that account's), newest first. */
export async function listTransactions(db: Knex, businessId: string, filter: TransactionFilter): Promise<Page<TransactionView>> {
  const query = joined(db, businessId, pageOfTransactions(db, businessId, filter));
  return paginate<JoinedRow, TransactionView>(query, filter, (rows) => toViews(db, rows), 't');
}

/** The columns of the transactions' CSV export (closed-loop `exportTransactionsCsv`): a transaction's fields but its entries. */
export const TRANSACTION_CSV_COLUMNS: CsvColumn<TransactionView>[] = [
  'created_at', 'id', 'reference', 'type', 'status', 'amount', 'currency', 'sender_account_number', 'receiver_account_number',
  'source_wallet_id', 'destination_wallet_id', 'external_reference', 'notes', 'original_transaction_id', 'reversal_transaction_id', 'refunded_amount',
];
