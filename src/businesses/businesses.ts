/**
 * Businesses. Each gets, in one database transaction, an operational account
 * (prefix 1), a settlement account (prefix 8; the counter-account for money
 * entering or leaving the closed loop) and a BUSINESS API client whose secret
 * is returned once.
 */
import { randomUUID } from 'node:crypto';
import { acrossBusinesses } from '../db/acrossBusinesses.js';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/closed-loop.js';
import type { components as CoreComponents } from '../../generated/types/core.js';
import { AppError, invalidField } from '../kernel/errors.js';
import { DEFAULT_API_VERSION, isApiVersion, type ApiVersion } from '../kernel/versioning/apiVersions.js';
import { insertAccount } from '../ledger/accounts.js';
import { createClient } from './clients.js';
import { formatMoney } from '../kernel/money.js';
import { paginate, type Page, type PageQuery } from '../kernel/pagination.js';

type Schemas = components['schemas'];
export type BusinessView = Schemas['Business'];

interface BusinessRow {
  id: string;
  name: string;
  external_reference: string | null;
  status: string;
  currency: string;
  api_version: string;
  time_zone: string;
  payout_low_balance_threshold: string | null;
  payout_approval_threshold: string | null;
  bulk_payout_approval: boolean;
  created_at: Date;
  updated_at: Date;
  account_number: string;
  balance: string;
}

function withOperationalAccount(db: Knex): Knex.QueryBuilder {
  return db('businesses as b')
    .join('accounts as a', function join() {
      this.on('a.business_id', '=', 'b.id').andOnVal('a.kind', '=', 'OPERATIONAL');
    })
    .select('b.*', 'a.account_number', 'a.balance');
}

function toView(row: BusinessRow): BusinessView {
  const currency = row.currency as Schemas['Currency'];
  return {
    id: row.id,
    name: row.name,
    external_reference: row.external_reference,
    status: 'ACTIVE',
    currency,
    operational_account: { account_number: row.account_number, currency, balance: formatMoney(row.balance) },
    api_version: row.api_version as ApiVersion,
    time_zone: row.time_zone,
    payout_low_balance_threshold: row.payout_low_balance_threshold === null ? null : formatMoney(row.payout_low_balance_threshold),
    payout_approval_threshold: row.payout_approval_threshold === null ? null : formatMoney(row.payout_approval_threshold),
    bulk_payout_approval: row.bulk_payout_approval,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * Creates a business with its accounts and client. `credentials` may fix the
 * client id and secret (the sandbox demo data); by default both are random.
 */
export async function createBusiness(
  db: Knex,
  req: Schemas['BusinessCreateRequest'],
  credentials?: { clientId: string; secret: string },
): Promise<Schemas['BusinessCreated']> {
  return db.transaction(async (trx) => {
    const id = randomUUID();
    const currency = req.currency ?? 'SAR';
    await trx('businesses').insert({ id, name: req.name, external_reference: req.external_reference ?? null, currency, api_version: req.api_version ?? DEFAULT_API_VERSION });
    for (const kind of ['OPERATIONAL', 'SETTLEMENT', 'PAYOUT', 'IN_TRANSIT'] as const) {
      await insertAccount(trx, { business_id: id, kind, currency });
    }
    const client = await createClient(trx, { kind: 'BUSINESS', businessId: id, clientId: credentials?.clientId, secret: credentials?.secret });
    const business = await getBusiness(trx, id);
    return { ...business, credentials: client };
  });
}

/** The business `id`; throws BUSINESS_NOT_FOUND. */
export async function getBusiness(db: Knex, id: string): Promise<BusinessView> {
  const row = await withOperationalAccount(db).where('b.id', id).first();
  if (!row) throw new AppError('BUSINESS_NOT_FOUND', `No business ${id}.`);
  return toView(row);
}

/** True when `zone` is an IANA time zone this runtime knows (`UTC` included). */
function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Changes the business's settings given in `req` (`updateBusiness`: default API version, time
 * zone, payout low-balance threshold, payout approval rules) and returns it. Throws 400 VALIDATION_ERROR for a time
 * zone the IANA database does not name, BUSINESS_NOT_FOUND.
 */
export async function updateBusiness(db: Knex, id: string, req: Schemas['BusinessUpdateRequest']): Promise<BusinessView> {
  if (req.time_zone !== undefined && !knownTimeZone(req.time_zone)) throw invalidField('/time_zone', 'is not a time zone of the IANA database (such as Asia/Riyadh)');
  const changes = {
    ...(req.api_version !== undefined ? { api_version: req.api_version } : {}),
    ...(req.time_zone !== undefined ? { time_zone: req.time_zone } : {}),
    ...(req.payout_low_balance_threshold !== undefined ? { payout_low_balance_threshold: req.payout_low_balance_threshold } : {}),
    ...(req.payout_approval_threshold !== undefined ? { payout_approval_threshold: req.payout_approval_threshold } : {}),
    ...(req.bulk_payout_approval !== undefined ? { bulk_payout_approval: req.bulk_payout_approval } : {}),
  };
  if (Object.keys(changes).length === 0) return getBusiness(db, id);
  const updated = await db('businesses').where({ id }).update({ ...changes, updated_at: db.fn.now(3) });
  if (updated === 0) throw new AppError('BUSINESS_NOT_FOUND', `No business ${id}.`);
  pinned.delete(id);
  return getBusiness(db, id);
}

/** How long an instance keeps a business's default version: a change reaches every instance within this (ms). */
const PINNED_VERSION_TTL_MS = 5_000;
const pinned = new Map<string, { version: ApiVersion; until: number }>();

/**
 * The business's default API version (`businesses.api_version`), read at most once per
 * PINNED_VERSION_TTL_MS per instance: every request without `X-API-Version` needs it.
 * DEFAULT_API_VERSION for a business that does not exist (its request fails later, as any).
 */
export async function businessApiVersion(db: Knex, id: string): Promise<ApiVersion> {
  const now = Date.now();
  const cached = pinned.get(id);
  if (cached && cached.until > now) return cached.version;
  const row = (await db('businesses').where({ id }).first('api_version')) as { api_version: string } | undefined;
  const version = row && isApiVersion(row.api_version) ? row.api_version : DEFAULT_API_VERSION;
  if (pinned.size >= 10_000) pinned.clear();
  pinned.set(id, { version, until: now + PINNED_VERSION_TTL_MS });
  return version;
}

/** What the capabilities above a business read of it: its currency (ISO 4217) and its default API version, read now (no cache). */
export interface BusinessSettings {
  currency: string;
  api_version: ApiVersion;
  /** The amount (decimal string) from which a payout needs an approval; null for none. */
  payout_approval_threshold: string | null;
  /** Whether every bulk payout needs an approval. */
  bulk_payout_approval: boolean;
}

/**
 * The settings of business `id`, read in `db` (a transaction when the caller's decision
 * depends on them). Payouts and webhooks read a business through this function, not from
 * its table (src/db/tableOwners.ts). Throws a plain Error for a business that is not there:
 * its callers act for an authenticated business.
 */
export async function businessSettings(db: Knex, id: string): Promise<BusinessSettings> {
  const row = await db('businesses').where({ id }).first('currency', 'api_version', 'payout_approval_threshold', 'bulk_payout_approval');
  if (!row) throw new Error(`business ${id} is not there`);
  return row;
}

/**
 * A page of all businesses, newest first: the platform's list, a read across businesses
 * (each business's operational account is on its own node: docs/scale-out.md).
 */
export async function listBusinesses(db: Knex, page: PageQuery): Promise<Page<BusinessView>> {
  return acrossBusinesses(db, (trx) => paginate<BusinessRow, BusinessView>(withOperationalAccount(trx), page, (rows) => rows.map(toView), 'b'));
}

type CoreSchemas = CoreComponents['schemas'];

/**
 * The balances of the business's own ledger accounts as they are now (core API
 * `getBusinessAccountBalance`, the Transactions group): the operational
 * account (prefix 1) and the payout account (prefix 2) that payouts to customers
 * draw from. Amounts are decimal strings with two places. Every business has
 * both accounts from its creation (businesses made before payouts existed were given
 * theirs when payouts came), so there is no error of its own.
 */
export async function getBusinessAccountBalance(db: Knex, businessId: string): Promise<CoreSchemas['BusinessAccountBalance']> {
  const rows: { kind: string; account_number: string; currency: string; balance: string }[] = await db('accounts')
    .where({ business_id: businessId })
    .whereIn('kind', ['OPERATIONAL', 'PAYOUT'])
    .select('kind', 'account_number', 'currency', 'balance');
  const account = (kind: string) => {
    const row = rows.find((r) => r.kind === kind);
    if (!row) throw new Error(`business ${businessId} has no ${kind} account`);
    return { account_number: row.account_number, currency: row.currency as CoreSchemas['Currency'], balance: formatMoney(row.balance) };
  };
  const operational = account('OPERATIONAL');
  return { business_id: businessId, currency: operational.currency, operational_account: operational, payout_account: account('PAYOUT'), as_of: new Date().toISOString() };
}
