/**
 * Wallet statements: for a period [from, to), the opening balance (the running
 * balance after the last entry before `from`), the entries in the period oldest
 * first with the running balance after each, and the closing balance. Rendered as
 * the document's `WalletStatement` JSON, one page at a time by cursor, or as CSV
 * (../kernel/csv.ts), streamed.
 *
 * Every read is index-backed and costs the same whatever the wallet's history
 * (openapi/DESIGN.md, "Statements that do not grow with the ledger"): an account's
 * entries are read in (created_at, entry_number) order from the index ledger_entries
 * (business_id, account_id, created_at, entry_number), which ledger_post keeps in posting order; an opening
 * balance is the `balance_after` of one entry (one backward index step), never a sum.
 */
import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/closed-loop.js';
import { AppError, invalidField } from '../kernel/errors.js';
import { Decimal, formatMoney } from '../kernel/money.js';
import { csvHeader, csvRows, type CsvColumn } from '../kernel/csv.js';

type Schemas = components['schemas'];
export type StatementView = Schemas['WalletStatement'];

/** Entries on a JSON page when the request names no `limit` (also the most it may name). */
export const STATEMENT_PAGE_MAX = 10_000;
/** Entries read by each query of a streamed CSV statement: its memory is one chunk's. */
export const CSV_CHUNK_ENTRIES = 2_000;
/**
 * Entries per piece of text the CSV stream hands on (about 15 KiB, an ordinary short-lived
 * string). One piece per chunk would be a string past V8's 128 KiB regular objects, a
 * large object per CSV request that grows the service's resident memory under
 * concurrent statements (openapi/DESIGN.md, "Memory: the old generation bounded").
 */
export const CSV_PIECE_ENTRIES = 100;

/** A line of the CSV statement: an entry, or the OPENING_BALANCE and CLOSING_BALANCE lines around them. */
type CsvLine = Omit<Partial<Schemas['StatementEntry']>, 'type'> & { type?: string };

const CSV_COLUMNS: CsvColumn<CsvLine>[] = ['created_at', 'transaction_id', 'reference', 'type', 'direction', 'amount', 'balance_after'];

/** What a statement request asks for (both operations; `limit` and `cursor` are the JSON one's). */
export interface StatementQuery {
  from?: string;
  to?: string;
  limit?: number;
  cursor?: string;
}

/** An entry's place in an account's (created_at, entry_number) order. */
interface Position {
  at: Date;
  number: string;
}

/** The wallet and period a statement covers, and where its page starts (null: at `from`). */
interface Period {
  businessId: string;
  wallet: { id: string; account_number: string; currency: string };
  from: Date;
  to: Date;
  after: Position | null;
}

interface EntryRow {
  entry_number: string;
  amount: string;
  balance_after: string;
  created_at: Date;
  transaction_id: string;
  reference: string;
  type: Schemas['TransactionType'];
}

function invalidCursor(): AppError {
  return new AppError('INVALID_CURSOR', 'The cursor is not one this service issued for this statement.', {
    errors: [{ pointer: '/query/cursor', detail: 'is not a valid cursor' }],
  });
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function isoDate(text: string): Date | null {
  const date = new Date(text);
  return ISO_MS.test(text) && !Number.isNaN(date.getTime()) && date.toISOString() === text ? date : null;
}

/**
 * A statement cursor: base64url of `<from>|<to>|<created_at>|<entry number>` (ISO instants
 * to the millisecond), the period of the first page and the last entry returned. It
 * carries the period so that the pages of one statement cover one period whatever `to`
 * defaulted to; it carries no balance (the next page reads it from the entry).
 */
function encodeCursor(period: Period, last: Position): string {
  return Buffer.from(`${period.from.toISOString()}|${period.to.toISOString()}|${last.at.toISOString()}|${last.number}`).toString('base64url');
}

function decodeCursor(cursor: string): { from: Date; to: Date; after: Position } {
  const [from, to, at, number, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const dates = [from, to, at].map((d) => isoDate(d ?? ''));
  if (extra !== undefined || dates.some((d) => !d) || !/^[1-9]\d{0,18}$/.test(number ?? '')) throw invalidCursor();
  const [fromDate, toDate, atDate] = dates as Date[];
  if (fromDate > toDate || atDate < fromDate || atDate >= toDate) throw invalidCursor();
  return { from: fromDate, to: toDate, after: { at: atDate, number } };
}

/**
 * The wallet and period of a request: `from` defaults to the wallet's creation, `to` to
 * now; with a cursor, the cursor's period (the request's `from` and `to` are then not
 * read). Throws WALLET_NOT_FOUND, VALIDATION_ERROR (`from` after `to`), INVALID_CURSOR.
 */
async function periodOf(db: Knex, businessId: string, walletId: string, query: StatementQuery): Promise<Period> {
  const wallet = await db('accounts').where({ id: walletId, business_id: businessId, kind: 'WALLET' }).first('id', 'account_number', 'currency', 'created_at');
  if (!wallet) throw new AppError('WALLET_NOT_FOUND', `No wallet ${walletId} for this business.`);
  if (query.cursor) return { businessId, wallet, ...decodeCursor(query.cursor) };
  const from = query.from ? new Date(query.from) : (wallet.created_at as Date);
  const to = query.to ? new Date(query.to) : new Date();
  if (from > to) throw invalidField('/query/from', 'must not be after to');
  return { businessId, wallet, from, to, after: null };
}

/**
 * The running balance of the wallet just before the period's page starts: after the
 * cursor's entry, or after the last entry before `from` (0.00 when there is none).
 * One index step either way. Throws INVALID_CURSOR when the cursor names no entry of
 * this wallet.
 */
async function openingBalance(db: Knex, period: Period): Promise<Decimal> {
  const entries = db('ledger_entries').where({ account_id: period.wallet.id, business_id: period.businessId });
  if (period.after) {
    const row = await entries.where({ created_at: period.after.at, entry_number: period.after.number }).first('balance_after');
    if (!row) throw invalidCursor();
    return new Decimal(row.balance_after);
  }
  const row = await entries
    .where('created_at', '<', period.from)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'entry_number', order: 'desc' },
    ])
    .first('balance_after');
  return new Decimal(row?.balance_after ?? 0);
}

/** Up to `limit` entries of the period after `after` (or from `from`), oldest first: one index range. */
function entriesAfter(db: Knex, period: Period, after: Position | null, limit: number): Promise<EntryRow[]> {
  const query = db('ledger_entries as e')
    .join('transactions as t', (on) => on.on('t.business_id', 'e.business_id').andOn('t.id', 'e.transaction_id'))
    .where({ 'e.account_id': period.wallet.id, 'e.business_id': period.businessId })
    .where('e.created_at', '<', period.to);
  if (after) query.whereRaw('(e.created_at, e.entry_number) > (?, ?)', [after.at, after.number]);
  else query.where('e.created_at', '>=', period.from);
  return query
    .orderBy([
      { column: 'e.created_at', order: 'asc' },
      { column: 'e.entry_number', order: 'asc' },
    ])
    .limit(limit)
    .select('e.entry_number', 'e.amount', 'e.balance_after', 'e.created_at', 't.id as transaction_id', 't.reference', 't.type');
}

function toEntry(r: EntryRow): Schemas['StatementEntry'] {
  const amount = new Decimal(r.amount);
  return {
    transaction_id: r.transaction_id,
    reference: r.reference,
    type: r.type,
    direction: amount.isNegative() ? 'DEBIT' : 'CREDIT',
    amount: formatMoney(amount.abs()),
    balance_after: formatMoney(r.balance_after),
    created_at: r.created_at.toISOString(),
  };
}

/**
 * One page of the statement of wallet `walletId`: up to `limit` entries
 * (STATEMENT_PAGE_MAX when absent) from the start of the period or after the cursor's
 * entry, with the balance before the page's first entry (`opening_balance`), after its
 * last (`closing_balance`), the totals of its entries, and `next_cursor` while entries
 * remain. A period of any size is served page by page, each page at the same cost.
 * Throws WALLET_NOT_FOUND, VALIDATION_ERROR (`from` after `to`) and INVALID_CURSOR.
 */
export async function getWalletStatement(db: Knex, businessId: string, walletId: string, query: StatementQuery): Promise<StatementView> {
  const period = await periodOf(db, businessId, walletId, query);
  const limit = query.limit ?? STATEMENT_PAGE_MAX;
  const opening = await openingBalance(db, period);
  const rows = await entriesAfter(db, period, period.after, limit + 1);
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  let debits = new Decimal(0);
  let credits = new Decimal(0);
  for (const r of page) {
    if (r.amount.startsWith('-')) debits = debits.plus(r.amount.slice(1));
    else credits = credits.plus(r.amount);
  }
  const last = page[page.length - 1];
  return {
    wallet_id: period.wallet.id,
    account_number: period.wallet.account_number,
    currency: period.wallet.currency as StatementView['currency'],
    from: period.from.toISOString(),
    to: period.to.toISOString(),
    opening_balance: formatMoney(opening),
    closing_balance: last ? formatMoney(last.balance_after) : formatMoney(opening),
    total_debits: formatMoney(debits),
    total_credits: formatMoney(credits),
    entries: page.map(toEntry),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor(period, { at: last.created_at, number: last.entry_number }) : null,
  };
}

/**
 * The statement of wallet `walletId` for the whole period as CSV, streamed: a header
 * line, an OPENING_BALANCE row, one row per entry oldest first, a CLOSING_BALANCE row.
 * The wallet and the period are checked and the opening balance read before this
 * resolves (so a refusal is an ordinary problem response: WALLET_NOT_FOUND,
 * VALIDATION_ERROR); the entries are then read CSV_CHUNK_ENTRIES at a time by keyset, as
 * the client takes them, so memory stays one chunk's whatever the period holds. A
 * database failure part way ends the stream without its CLOSING_BALANCE row.
 */
export async function streamWalletStatementCsv(db: Knex, businessId: string, walletId: string, query: { from?: string; to?: string }): Promise<Readable> {
  const period = await periodOf(db, businessId, walletId, { from: query.from, to: query.to });
  const opening = await openingBalance(db, period);
  async function* lines(): AsyncGenerator<string> {
    const balanceRow = (at: Date, type: string, balance: string): CsvLine => ({ created_at: at.toISOString(), type, balance_after: balance });
    yield csvHeader(CSV_COLUMNS) + csvRows(CSV_COLUMNS, [balanceRow(period.from, 'OPENING_BALANCE', formatMoney(opening))]);
    let closing = formatMoney(opening);
    let after: Position | null = null;
    for (;;) {
      const rows = await entriesAfter(db, period, after, CSV_CHUNK_ENTRIES);
      for (let i = 0; i < rows.length; i += CSV_PIECE_ENTRIES) {
        yield csvRows(CSV_COLUMNS, rows.slice(i, i + CSV_PIECE_ENTRIES).map(toEntry));
      }
      if (rows.length) {
        const last = rows[rows.length - 1];
        closing = formatMoney(last.balance_after);
        after = { at: last.created_at, number: last.entry_number };
      }
      if (rows.length < CSV_CHUNK_ENTRIES) break;
    }
    yield csvRows(CSV_COLUMNS, [balanceRow(period.to, 'CLOSING_BALANCE', closing)]);
  }
  return Readable.from(lines(), { objectMode: false });
}
