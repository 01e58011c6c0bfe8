/**
 * The payout whitelist (core.yaml tag Whitelist): entries name customers the
 * business may pay while it enforces the list (`payout_settings.whitelist_enforced`).
 * The enforcement itself is in the ledger's `payout_create`
 * (src/payouts/sql/payout_create.sql), so every payout path honours it.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { AppError, invalidField } from '../kernel/errors.js';
import { paginate, type Page, type PageQuery } from '../kernel/pagination.js';

type Schemas = components['schemas'];
type Entry = Schemas['PayoutWhitelistEntry'];
type EntryInput = Schemas['PayoutWhitelistEntryInput'];

const IDENTIFIERS = ['customer_id', 'walletAccountNumber', 'mobileNumber'] as const;

/** The business's entries with their customers (alias `w`). */
function entries(db: Knex, businessId: string): Knex.QueryBuilder {
  return db('payout_whitelist_entries as w')
    .join('customers as c', (on) => on.on('c.business_id', 'w.business_id').andOn('c.id', 'w.customer_id'))
    .leftJoin('accounts as a', (on) => on.on('a.business_id', 'c.business_id').andOn('a.id', 'c.wallet_id'))
    .where('w.business_id', businessId)
    .select('w.id', 'w.customer_id', 'w.created_at', 'c.mobile_number', 'a.account_number as wallet_account_number');
}

interface EntryRow {
  id: string;
  customer_id: string;
  mobile_number: string;
  wallet_account_number: string | null;
  created_at: Date;
}

function toEntry(row: EntryRow): Entry {
  return {
    entry_id: row.id,
    customer_id: row.customer_id,
    mobile_number: row.mobile_number,
    wallet_account_number: row.wallet_account_number,
    created_at: row.created_at.toISOString(),
  };
}

/** The customer id `input` names (the customers' `customer_by_identifier`); 404 CUSTOMER_NOT_FOUND. */
async function receiverOf(trx: Knex, businessId: string, input: EntryInput): Promise<string> {
  const { rows } = await trx.raw('SELECT (customer_by_identifier(?::uuid, ?::jsonb)).id AS id', [businessId, JSON.stringify(input)]);
  if (!rows[0].id) {
    const [name, value] = Object.entries(input)[0] as [string, string];
    throw new AppError('CUSTOMER_NOT_FOUND', `No customer with ${name} ${value} for this business.`);
  }
  return rows[0].id;
}

/**
 * Adds each input's customer (exactly one identifier each, else 400 VALIDATION_ERROR at
 * `/entries/<i>`; unknown: 404 CUSTOMER_NOT_FOUND) to the whitelist, all or nothing. A
 * customer already on it keeps its entry. Returns one entry per input, in order.
 */
export async function addWhitelistEntries(db: Knex, businessId: string, inputs: EntryInput[]): Promise<Entry[]> {
  inputs.forEach((input, i) => {
    const given = IDENTIFIERS.filter((k) => input[k] !== undefined).length;
    if (given !== 1) throw invalidField(`/entries/${i}`, `must name exactly one of customer_id, walletAccountNumber and mobileNumber (${given} given)`);
  });
  return db.transaction(async (trx) => {
    const ids: string[] = [];
    for (const input of inputs) ids.push(await receiverOf(trx, businessId, input));
    await trx('payout_whitelist_entries')
      .insert([...new Set(ids)].map((customer_id) => ({ id: randomUUID(), business_id: businessId, customer_id })))
      .onConflict(['business_id', 'customer_id'])
      .ignore();
    const rows: EntryRow[] = await entries(trx, businessId).whereIn('w.customer_id', ids);
    const byCustomer = new Map(rows.map((r) => [r.customer_id, r]));
    return ids.map((id) => toEntry(byCustomer.get(id)!));
  });
}

/** The business's entries, newest first (cursor pagination); 400 INVALID_CURSOR. */
export function listWhitelistEntries(db: Knex, businessId: string, page: PageQuery): Promise<Page<Entry>> {
  return paginate<EntryRow, Entry>(entries(db, businessId), page, (rows) => rows.map(toEntry), 'w');
}

/** Deletes entry `id` and returns it as it was; 404 PAYOUT_WHITELIST_ENTRY_NOT_FOUND. */
export async function deleteWhitelistEntry(db: Knex, businessId: string, id: string): Promise<Entry> {
  return db.transaction(async (trx) => {
    const row = await entries(trx, businessId).where('w.id', id).forUpdate('w').first();
    if (!row) throw new AppError('PAYOUT_WHITELIST_ENTRY_NOT_FOUND', `No payout whitelist entry ${id} for this business.`);
    await trx('payout_whitelist_entries').where({ id, business_id: businessId }).delete();
    return toEntry(row);
  });
}

/** Whether the business enforces its whitelist. */
export async function getWhitelistEnforcement(db: Knex, businessId: string): Promise<Schemas['PayoutWhitelistEnforcement']> {
  const row = await db('payout_settings').where({ business_id: businessId }).first('whitelist_enforced');
  return { enforced: Boolean(row?.whitelist_enforced) };
}

/** Turns enforcement on or off (idempotent); returns the setting. */
export async function setWhitelistEnforcement(db: Knex, businessId: string, enforced: boolean): Promise<Schemas['PayoutWhitelistEnforcement']> {
  await db('payout_settings')
    .insert({ business_id: businessId, whitelist_enforced: enforced })
    .onConflict('business_id')
    .merge({ whitelist_enforced: enforced, updated_at: db.raw('excluded.updated_at') });
  return { enforced };
}
