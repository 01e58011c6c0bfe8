/**
 * Money arithmetic in the browser on the API's decimal strings ("-1234.5", "12.50"): exact,
 * in whole cents as BigInt, never through a JS number (which rounds). An amount a person
 * types is checked against the ledger's rule (src/ledger/sql/ledger_amount_problem.sql: up
 * to 15 digits, at most two decimals, more than zero) before any request is sent.
 */

/** An amount the ledger accepts, zero included (zero is refused separately). */
const AMOUNT = /^[0-9]{1,15}([.][0-9]{1,2})?$/;

/** A decimal amount string (`"-1234.5"`, no thousands separators) in cents, exactly. */
export const cents = (amount) => {
  const text = String(amount).trim();
  const [whole, fraction = ''] = text.replace('-', '').split('.');
  const value = BigInt(whole || '0') * 100n + BigInt(fraction.padEnd(2, '0').slice(0, 2) || '0');
  return text.startsWith('-') ? -value : value;
};

/** Cents (a BigInt) as the API's decimal string with two decimals: `-123456n` → `"-1234.56"`. */
export const fromCents = (value) => {
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
};

/** The sum of decimal amount strings, with two decimals (`"0.00"` for none). */
export const sumOf = (amounts) => fromCents(amounts.reduce((total, a) => total + cents(a), 0n));

/** `a` minus `b` (decimal strings), with two decimals. */
export const minus = (a, b) => fromCents(cents(a) - cents(b));

/** Whether amount `a` is below amount `b` (decimal strings). */
export const below = (a, b) => cents(a) < cents(b);

/** Whether a decimal amount string is below zero. */
export const negative = (amount) => cents(amount) < 0n;

/**
 * A typed amount as the API would read it, with two decimals (`" 25"` → `"25.00"`), or null
 * when the ledger would refuse it (not digits with at most two decimals, or zero).
 */
export function typedAmount(text) {
  const value = String(text ?? '').trim();
  if (!AMOUNT.test(value) || cents(value) === 0n) return null;
  return fromCents(cents(value));
}

/** What is wrong with a typed amount, in words, or null when the ledger takes it. */
export const amountProblem = (text) =>
  typedAmount(text) === null ? 'The amount must be more than zero, such as 12.50: digits, a dot and at most two decimals.' : null;
