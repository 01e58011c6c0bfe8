/**
 * Wallets: ledger accounts of kind WALLET with a name, a label and a status.
 * Seed rules ("Wallet"): the service generates the record and a unique account
 * number with prefix 9; a new wallet is ACTIVE with balance 0.00; the wallet
 * is linked to the business by business_id and to its operational ledger.
 * Status moves: ACTIVE ⇄ SUSPENDED, ACTIVE|SUSPENDED → CLOSED (needs a zero
 * balance); CLOSED is final.
 */
import type { Knex } from 'knex';
import { rowReader } from '../db/batchedReads.js';
import { preparedQuery, preparedStatement } from '../db/knex.js';
import type { components } from '../../generated/types/closed-loop.js';
import { AppError } from '../kernel/errors.js';
import { openWalletAccount, updateWalletSettings, type WalletSettings } from '../ledger/accounts.js';
import { getLabel } from './labels.js';
import type { AccountRow } from '../ledger/ledger.js';
import { Decimal, formatMoney } from '../kernel/money.js';
import { paginate, type Page, type PageQuery } from '../kernel/pagination.js';

type Schemas = components['schemas'];
export type WalletView = Schemas['Wallet'];

function toView(row: AccountRow): WalletView {
  return {
    id: row.id,
    business_id: row.business_id,
    name: row.name ?? '',
    label_id: row.label_id,
    external_reference: row.external_reference,
    can_overdraft: row.can_overdraft,
    status: row.status as Schemas['WalletStatus'],
    account_number: row.account_number,
    currency: row.currency as Schemas['Currency'],
    balance: formatMoney(row.balance),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function wallets(db: Knex, businessId: string): Knex.QueryBuilder {
  return db('accounts').where({ business_id: businessId, kind: 'WALLET' });
}

/**
 * Accounts by their primary key (id, business_id), the kind checked below: with `kind` in
 * the WHERE clause as well, the prepared statement's generic plan scanned the business's
 * (business_id, kind, created_at, id) index (28 buffers for a business of 2,000 wallets)
 * instead of the primary key (3 buffers). Concurrent reads share one statement
 * (../db/batchedReads.ts).
 */
const accounts = rowReader<AccountRow>('accounts_by_id', 'accounts');
const WALLET_ROW_FOR_UPDATE = preparedStatement(
  'wallet_row_for_update',
  "SELECT * FROM accounts WHERE id = ? AND business_id = ? AND kind = 'WALLET' FOR NO KEY UPDATE",
);

/**
 * The wallet row `id` of the business (locked with `lock`), by a named prepared
 * statement (the hottest read: getWallet; unlocked, a batched read). Throws WALLET_NOT_FOUND.
 */
async function walletRow(db: Knex, businessId: string, id: string, lock = false): Promise<AccountRow> {
  const row = lock
    ? (await preparedQuery<AccountRow>(db, WALLET_ROW_FOR_UPDATE, [id, businessId]))[0]
    : await accounts.load(db, businessId, id);
  if (!row || row.business_id !== businessId || row.kind !== 'WALLET') throw new AppError('WALLET_NOT_FOUND', `No wallet ${id} for this business.`);
  return row;
}

/**
 * Creates a wallet of `businessId`. A `business_id` in the request must be
 * the caller's (another business's id is BUSINESS_NOT_FOUND); a `label_id`
 * must be one of the business's labels (LABEL_NOT_FOUND).
 */
export async function createWallet(db: Knex, businessId: string, req: Schemas['WalletCreateRequest']): Promise<WalletView> {
  if (req.business_id && req.business_id !== businessId) {
    throw new AppError('BUSINESS_NOT_FOUND', `No business ${req.business_id}.`);
  }
  if (req.label_id) await getLabel(db, businessId, req.label_id);
  const row = await openWalletAccount(db, businessId, {
    name: req.name,
    currency: req.currency,
    canOverdraft: req.can_overdraft,
    labelId: req.label_id,
    externalReference: req.external_reference,
  });
  return toView(row);
}

/** The wallet `id` of the business; throws WALLET_NOT_FOUND (also for another business's wallet). */
export async function getWallet(db: Knex, businessId: string, id: string): Promise<WalletView> {
  return toView(await walletRow(db, businessId, id));
}

/** Balance of a wallet as of now. */
export async function getWalletBalance(db: Knex, businessId: string, id: string): Promise<Schemas['WalletBalance']> {
  const row = await walletRow(db, businessId, id);
  return {
    wallet_id: row.id,
    account_number: row.account_number,
    currency: row.currency as Schemas['Currency'],
    balance: formatMoney(row.balance),
    can_overdraft: row.can_overdraft,
    as_of: new Date().toISOString(),
  };
}

/** A page of the business's wallets, newest first, optionally by status, label, name and external reference. */
export async function listWallets(
  db: Knex,
  businessId: string,
  filter: PageQuery & { status?: string; label_id?: string; name?: string; external_reference?: string },
): Promise<Page<WalletView>> {
  const query = wallets(db, businessId);
  if (filter.status) query.where({ status: filter.status });
  if (filter.label_id) query.where({ label_id: filter.label_id });
  // Each an index range in the page's order: (business_id, name | external_reference, created_at, id).
  if (filter.name) query.where({ name: filter.name });
  if (filter.external_reference) query.where({ external_reference: filter.external_reference });
  return paginate<AccountRow, WalletView>(query, filter, (rows) => rows.map(toView));
}

export interface LookupCriteria {
  account_number?: string;
  name?: string;
  label_id?: string;
  external_reference?: string;
}

/**
 * The one wallet matching all given criteria. Throws VALIDATION_ERROR without
 * account_number, name or external_reference; WALLET_NOT_FOUND on no match;
 * WALLET_LOOKUP_AMBIGUOUS when several wallets match.
 */
export async function lookupWallet(db: Knex, businessId: string, criteria: LookupCriteria): Promise<WalletView> {
  if (!criteria.account_number && !criteria.name && !criteria.external_reference) {
    throw new AppError('VALIDATION_ERROR', 'Give account_number, name or external_reference to look a wallet up.', {
      errors: [{ pointer: '/query', detail: 'needs account_number, name or external_reference' }],
    });
  }
  const query = wallets(db, businessId);
  for (const field of ['account_number', 'name', 'label_id', 'external_reference'] as const) {
    if (criteria[field]) query.where(field, criteria[field]);
  }
  const rows: AccountRow[] = await query.orderBy('created_at').limit(2);
  if (!rows.length) throw new AppError('WALLET_NOT_FOUND', 'No wallet matches the lookup.');
  if (rows.length > 1) throw new AppError('WALLET_LOOKUP_AMBIGUOUS', 'Several wallets match; narrow the lookup (label_id, account_number).');
  return toView(rows[0]);
}

/**
 * Updates name, external_reference, can_overdraft or status. Throws
 * INVALID_STATUS_TRANSITION (leaving CLOSED) and WALLET_BALANCE_NOT_ZERO
 * (closing a wallet that holds or owes money; also turning overdraft off while negative).
 */
export async function updateWallet(db: Knex, businessId: string, id: string, req: Schemas['WalletUpdateRequest']): Promise<WalletView> {
  return db.transaction(async (trx) => {
    const row = await walletRow(trx, businessId, id, true);
    if (req.status && req.status !== row.status) {
      if (row.status === 'CLOSED') {
        throw new AppError('INVALID_STATUS_TRANSITION', 'A CLOSED wallet cannot change status.');
      }
      if (req.status === 'CLOSED' && !new Decimal(row.balance).isZero()) {
        throw new AppError('WALLET_BALANCE_NOT_ZERO', `The wallet holds ${formatMoney(row.balance)}; move it out before closing.`);
      }
    }
    if (req.can_overdraft === false && new Decimal(row.balance).isNegative()) {
      throw new AppError('WALLET_BALANCE_NOT_ZERO', `The wallet owes ${formatMoney(row.balance)}; settle it before turning overdraft off.`);
    }
    const changes: WalletSettings = {};
    for (const field of ['name', 'external_reference', 'can_overdraft', 'status'] as const) {
      if (req[field] !== undefined) Object.assign(changes, { [field]: req[field] });
    }
    return toView((await updateWalletSettings(trx, businessId, id, changes))!);
  });
}

/** Sets the wallet's label (replacing any). Throws WALLET_NOT_FOUND, LABEL_NOT_FOUND. */
export async function assignWalletLabel(db: Knex, businessId: string, id: string, labelId: string): Promise<WalletView> {
  await walletRow(db, businessId, id);
  await getLabel(db, businessId, labelId);
  return toView((await updateWalletSettings(db, businessId, id, { label_id: labelId }))!);
}

/**
 * Clears the wallet's label; with `onlyLabelId`, only when it is that label
 * (else LABEL_NOT_FOUND: the label is not the wallet's).
 */
export async function removeWalletLabel(db: Knex, businessId: string, id: string, onlyLabelId?: string): Promise<WalletView> {
  const wallet = await walletRow(db, businessId, id);
  if (onlyLabelId && wallet.label_id !== onlyLabelId) {
    throw new AppError('LABEL_NOT_FOUND', `Label ${onlyLabelId} is not assigned to wallet ${id}.`);
  }
  return toView((await updateWalletSettings(db, businessId, id, { label_id: null }))!);
}
