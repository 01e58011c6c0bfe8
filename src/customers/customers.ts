/**
 * Customers of a business, as onboarding creates and completes them: read one,
 * list them. Identity data beyond the verified name (national id, date of
 * birth) is never returned.
 */
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { AppError } from '../kernel/errors.js';
import { paginate, type Page, type PageQuery } from '../kernel/pagination.js';
import type { CsvColumn } from '../kernel/csv.js';

type Schemas = components['schemas'];
export type CustomerView = Schemas['Customer'];

/** A row of `customers` joined with its wallet's account number. */
interface CustomerRow {
  id: string;
  status: CustomerView['status'];
  mobile_number: string;
  full_name: string | null;
  locale: CustomerView['locale'];
  external_reference: string | null;
  wallet_id: string | null;
  wallet_account_number: string | null;
  occupation_class: CustomerView['occupation_class'];
  occupation: CustomerView['occupation'];
  employer_name: string | null;
  income_source: CustomerView['income_source'];
  monthly_income_range: CustomerView['monthly_income_range'];
  politically_exposed: boolean | null;
  pep_relation: CustomerView['pep_relation'];
  risk_rating: CustomerView['risk_rating'];
  mobile_number_changed_at: Date | null;
  activated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = [
  'c.id',
  'c.status',
  'c.mobile_number',
  'c.full_name',
  'c.locale',
  'c.external_reference',
  'c.wallet_id',
  'a.account_number as wallet_account_number',
  'c.occupation_class',
  'c.occupation',
  'c.employer_name',
  'c.income_source',
  'c.monthly_income_range',
  'c.politically_exposed',
  'c.pep_relation',
  'c.risk_rating',
  'c.mobile_number_changed_at',
  'c.activated_at',
  'c.created_at',
  'c.updated_at',
];

function customers(db: Knex, businessId: string): Knex.QueryBuilder {
  return db('customers as c').leftJoin('accounts as a', (on) => on.on('a.business_id', 'c.business_id').andOn('a.id', 'c.wallet_id')).where('c.business_id', businessId).select(COLUMNS);
}

function toView(row: CustomerRow): CustomerView {
  return {
    ...row,
    mobile_number_changed_at: row.mobile_number_changed_at?.toISOString() ?? null,
    activated_at: row.activated_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString(),
  };
}

/** The customer `id` of the business; 404 CUSTOMER_NOT_FOUND (also for another business's). */
export async function getCustomer(db: Knex, businessId: string, id: string): Promise<CustomerView> {
  const row = await customers(db, businessId).where('c.id', id).first();
  if (!row) throw new AppError('CUSTOMER_NOT_FOUND', `No customer ${id} for this business.`);
  return toView(row);
}

/** A page of the business's customers, newest first, optionally by status and mobile number. */
export async function listCustomers(
  db: Knex,
  businessId: string,
  filter: PageQuery & { status?: string; mobile_number?: string },
): Promise<Page<CustomerView>> {
  const query = customers(db, businessId);
  if (filter.status) query.where('c.status', filter.status);
  if (filter.mobile_number) query.where('c.mobile_number', filter.mobile_number);
  return paginate<CustomerRow, CustomerView>(query, filter, (rows) => rows.map(toView), 'c');
}

/** The columns of the customers' CSV export (core `exportCustomersCsv`): every field of a Customer, its creation first. */
export const CUSTOMER_CSV_COLUMNS: CsvColumn<CustomerView>[] = [
  'created_at', 'id', 'status', 'mobile_number', 'full_name', 'locale', 'external_reference', 'wallet_id', 'wallet_account_number',
  'occupation_class', 'occupation', 'employer_name', 'income_source', 'monthly_income_range', 'politically_exposed', 'pep_relation',
  'risk_rating', 'mobile_number_changed_at', 'activated_at', 'updated_at',
];
