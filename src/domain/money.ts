/**
 * Money values: decimal strings in the API, decimal.js in code, numeric(20,2)
 * in PostgreSQL. Never a JavaScript number (../shared/API_CONVENTIONS.md, "Values").
 */
import { Decimal } from 'decimal.js';
import { invalidField } from '../errors.js';

/**
 * Balances stay strictly below this in absolute value: at most 999999999999999.99,
 * the 15 integer digits of the documented `Balance` pattern `^-?\d{1,15}\.\d{2}$`
 * (numeric(20,2) could hold more; the contract is the limit).
 */
export const MAX_BALANCE = new Decimal('1e15');

/**
 * Parses a request amount already matched against `^\d{1,15}(\.\d{1,2})?$`.
 * Throws 400 VALIDATION_ERROR at `pointer` when it is zero.
 */
export function parsePositiveAmount(value: string, pointer = '/amount'): Decimal {
  const amount = new Decimal(value);
  if (amount.lte(0)) throw invalidField(pointer, 'must be greater than 0');
  return amount;
}

/** Formats a decimal (or a numeric string from PostgreSQL) with exactly two decimals. */
export function formatMoney(value: Decimal.Value): string {
  return new Decimal(value).toFixed(2);
}

export { Decimal };
