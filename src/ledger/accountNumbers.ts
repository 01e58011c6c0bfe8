/**
 * Account numbers: 12 digits = 1-digit prefix + 10-digit serial from the
 * PostgreSQL sequence `account_number_seq` + Luhn check digit (ISO/IEC 7812-1).
 * Unique by construction: the sequence never repeats a serial.
 * Prefixes (seed, "Wallet" rule 2: 9 means individual wallet; the others are ours):
 * 9 individual wallet, 1 business operational account, 8 business settlement account,
 * 2 business payout account (pays customers, core API E4), 7 business in-transit account
 * (payouts between creation and outcome). Numbers are drawn here only: the database has no twin.
 */
import type { Knex } from 'knex';
import { luhnCheckDigit } from '../kernel/luhn.js';

export const ACCOUNT_PREFIX = { WALLET: '9', OPERATIONAL: '1', SETTLEMENT: '8', PAYOUT: '2', IN_TRANSIT: '7' } as const;
export type AccountKind = keyof typeof ACCOUNT_PREFIX;

/** Draws the next account number for an account of `kind`. */
export async function nextAccountNumber(db: Knex, kind: AccountKind): Promise<string> {
  const { rows } = await db.raw("SELECT nextval('account_number_seq')::text AS serial");
  const body = ACCOUNT_PREFIX[kind] + String(rows[0].serial).padStart(10, '0');
  return body + luhnCheckDigit(body);
}
