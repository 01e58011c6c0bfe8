/**
 * Opening ledger accounts that belong to someone other than the business itself:
 * wallets (kind WALLET, account number prefix 9, ./accountNumbers.ts), and changing a
 * wallet's settings. The ledger owns the accounts; a business opens wallets through the
 * closed-loop API (src/businesses/wallets.ts) and a customer gets one when its onboarding
 * completes (src/customers/customerInformation.ts), both through `openWalletAccount`; a
 * wallet's name, status, overdraft and label change through `updateWalletSettings`.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { type AccountKind, nextAccountNumber } from './accountNumbers.js';
import type { AccountRow } from './ledger.js';

/** What a new wallet account holds besides its business (all optional but the name). */
export interface WalletAccountRequest {
  name: string;
  /** ISO 4217 code; default: the currency of the business's operational account, else SAR. */
  currency?: string;
  /** Default false. */
  canOverdraft?: boolean;
  /** A label of the business (checked by the caller). */
  labelId?: string | null;
  externalReference?: string | null;
}

/** The columns of a new account row that its opener chooses. */
export type NewAccount = Pick<AccountRow, 'business_id' | 'kind' | 'currency'> & Partial<Pick<AccountRow, 'can_overdraft' | 'name' | 'label_id' | 'external_reference'>>;

/**
 * Inserts an account of `account.business_id` with a new id and account number, and
 * enters the number in the account number directory (`account_numbers`, number →
 * business and account) in the same database transaction: the directory's primary key
 * is the rule that a number names one account across all businesses, even when each
 * business's accounts live on a node of their own (Citus: the directory is distributed
 * by the number, so this is a statement of its own, on the number's node). Returns the
 * account's row. Throws database errors only (23505 should a number ever be taken).
 */
export async function insertAccount(db: Knex, account: NewAccount): Promise<AccountRow> {
  const write = async (trx: Knex) => {
    const id = randomUUID();
    const accountNumber = await nextAccountNumber(trx, account.kind as AccountKind);
    await trx('account_numbers').insert({ account_number: accountNumber, business_id: account.business_id, account_id: id });
    const [row] = await trx('accounts').insert({ ...account, id, account_number: accountNumber }).returning('*');
    return row as AccountRow;
  };
  return db.isTransaction ? write(db) : db.transaction(write);
}

/**
 * Opens a wallet account of business `businessId`: a new account number, ACTIVE,
 * balance 0.00. Returns its row. Throws only database errors (the caller checks the
 * business and the label first).
 */
export async function openWalletAccount(db: Knex, businessId: string, req: WalletAccountRequest): Promise<AccountRow> {
  const operational = await db('accounts').where({ business_id: businessId, kind: 'OPERATIONAL' }).first('currency');
  return insertAccount(db, {
    business_id: businessId,
    kind: 'WALLET',
    currency: req.currency ?? operational?.currency ?? 'SAR',
    can_overdraft: req.canOverdraft ?? false,
    name: req.name,
    label_id: req.labelId ?? null,
    external_reference: req.externalReference ?? null,
  });
}

/** What a business may change of its wallet: not its number, kind, currency or balance, which are the ledger's. */
export type WalletSettings = Partial<Pick<AccountRow, 'name' | 'external_reference' | 'can_overdraft' | 'status' | 'label_id'>>;

/**
 * Changes the settings of wallet `id` of business `businessId` and returns its row, or
 * undefined when the business has no such wallet. The caller checks its rules (a CLOSED
 * wallet stays closed, a wallet that holds money does not close) first, in the same
 * transaction. Throws database errors only.
 */
export async function updateWalletSettings(db: Knex, businessId: string, id: string, settings: WalletSettings): Promise<AccountRow | undefined> {
  const [row] = await db('accounts').where({ id, business_id: businessId, kind: 'WALLET' }).update({ ...settings, updated_at: db.fn.now(3) }).returning('*');
  return row as AccountRow | undefined;
}
