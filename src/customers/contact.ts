/**
 * The customers' face for the capabilities above them (cards, payouts): what they may know
 * of a customer, read through these functions rather than from the `customers` table, which
 * the customers room owns (src/db/tableOwners.ts). In SQL the face is
 * `customer_by_identifier` (src/customers/sql/customer_by_identifier.sql).
 */
import type { Knex } from 'knex';
import type { Locale } from '../kernel/otp/messages.js';

/** Where a customer's codes go: their mobile number (as stored), and the language of their messages. */
export interface CustomerContact {
  mobile_number: string;
  locale: Locale;
}

/** A customer's standing: their status (`Customer.status` of core.yaml) and the id of their wallet account. */
export interface CustomerStanding {
  id: string;
  status: string;
  wallet_id: string;
}

/**
 * The contact of customer `customerId` of business `businessId`, read in `db` (a transaction
 * when the caller's decision depends on it). The caller holds a row that names the customer
 * (a card, an issuance), so the customer exists: a missing one is a broken invariant and
 * throws a plain Error.
 */
export async function customerContact(db: Knex, businessId: string, customerId: string): Promise<CustomerContact> {
  const row = await db('customers').where({ id: customerId, business_id: businessId }).first('mobile_number', 'locale');
  if (!row) throw new Error(`customer ${customerId} of business ${businessId} is not there`);
  return row;
}

/** The standing of customer `customerId` of business `businessId`; undefined when the business has no such customer. */
export async function customerStanding(db: Knex, businessId: string, customerId: string): Promise<CustomerStanding | undefined> {
  return db('customers').where({ id: customerId, business_id: businessId }).first('id', 'status', 'wallet_id');
}
