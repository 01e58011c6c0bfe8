/**
 * Money values: decimal strings in the API, decimal.js in code, numeric(20,2)
 * in PostgreSQL. Never a JavaScript number (openapi/API_CONVENTIONS.md, "Values").
 * Amounts of movements are parsed and checked (positive, two decimals, below
 * ±1e15 as balances) by the ledger in PostgreSQL (migrations 002 and 003).
 */
import { Decimal } from 'decimal.js';

/** Formats a decimal (or a numeric string from PostgreSQL) with exactly two decimals. */
export function formatMoney(value: Decimal.Value): string {
  // numeric(20,2) from PostgreSQL already has exactly two decimals (and never "-0.00").
  if (typeof value === 'string' && /^-?\d+\.\d\d$/.test(value)) return value;
  return new Decimal(value).toFixed(2);
}

export { Decimal };
