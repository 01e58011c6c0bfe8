/**
 * Account numbers: 12 digits = 1-digit prefix + 10-digit serial from the
 * PostgreSQL sequence `account_number_seq` + Luhn check digit (ISO/IEC 7812-1).
 * Unique by construction: the sequence never repeats a serial.
 * Prefixes (seed, "Wallet" rule 2: 9 means individual wallet; the others are ours):
 * 9 individual wallet, 1 business operational account, 8 business settlement account,
 * 2 business payout account (pays customers, core API E4), 7 business in-transit account
 * (payouts between creation and outcome). The SQL twin is `account_number_next` (011_payouts).
 */
import type { Knex } from 'knex';

export const ACCOUNT_PREFIX = { WALLET: '9', OPERATIONAL: '1', SETTLEMENT: '8', PAYOUT: '2', IN_TRANSIT: '7' } as const;
export type AccountKind = keyof typeof ACCOUNT_PREFIX;

/** Luhn check digit of a digit string. */
export function luhnCheckDigit(digits: string): string {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

/** Draws the next account number for an account of `kind`. */
export async function nextAccountNumber(db: Knex, kind: AccountKind): Promise<string> {
  const { rows } = await db.raw("SELECT nextval('account_number_seq')::text AS serial");
  const body = ACCOUNT_PREFIX[kind] + String(rows[0].serial).padStart(10, '0');
  return body + luhnCheckDigit(body);
}
