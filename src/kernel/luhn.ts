/**
 * The Luhn check digit (ISO/IEC 7812-1, the "mod 10" algorithm): the last digit of
 * every account number (src/ledger/accountNumbers.ts) and every PAN
 * (src/cards/data.ts), so that a mistyped digit or a swap of two neighbours is caught
 * before a lookup.
 */

/** The Luhn check digit of `digits` (a string of decimal digits, without its check digit), as one character '0'–'9'. */
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
