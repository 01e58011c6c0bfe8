/**
 * Problem responses (RFC 9457, the documents' `Problem`) in words for an operator: a field
 * error's JSON Pointer becomes the field's name ("/body/payout_amount" → "Payout amount",
 * "/body/items/2/amount" → "Item 3: amount") and a validator's message a sentence (a pattern
 * or a format is never shown raw). A Retry is offered only where trying again can help.
 */

/** "payout_amount" → "payout amount". */
const spaced = (key) => key.replace(/_/g, ' ');

/** The name of the field at `pointer` (`/body/…`, `/query/…`, `/path/…`, `/header/…`), in words, capitalised. */
export function fieldName(pointer) {
  const keys = String(pointer ?? '').split('/').slice(1).map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (['body', 'query', 'path', 'header', 'headers'].includes(keys[0])) keys.shift();
  const parts = [];
  for (let i = 0; i < keys.length; i++) {
    const next = keys[i + 1];
    if (next !== undefined && /^\d+$/.test(next)) {
      parts.push(`${spaced(keys[i]).replace(/s$/, '')} ${Number(next) + 1}`);
      i++;
    } else parts.push(spaced(keys[i]));
  }
  const text = parts.filter(Boolean).join(': ') || 'the request';
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** What the field at `pointer` should look like, for a message about its form. */
function expectedForm(pointer) {
  if (/amount|balance|limit$/.test(pointer)) return 'an amount such as 12.50: digits, a dot and at most two decimals';
  if (/mobile|phone/.test(pointer)) return 'a mobile number such as 0501234567 or +966501234567';
  if (/email/.test(pointer)) return 'an email address';
  if (/iban|account/.test(pointer)) return 'an account number as the bank gives it';
  return null;
}

const FORMATS = {
  uuid: 'an id such as 3f1c9b2e-8d4a-4c6b-9e2f-1a2b3c4d5e6f',
  'date-time': 'a date and time',
  date: 'a date',
  email: 'an email address',
  uri: 'a web address',
};

/** The validator's `detail` for the field at `pointer`, as a sentence without patterns or formats. */
export function fieldProblem(pointer, detail) {
  const text = String(detail ?? '');
  let m;
  if (/^must match pattern/.test(text)) return `must be ${expectedForm(pointer) ?? 'in the form the field asks for'}`;
  if ((m = /^must match format "([^"]+)"/.exec(text))) return `must be ${FORMATS[m[1]] ?? expectedForm(pointer) ?? 'in the form the field asks for'}`;
  if ((m = /^must NOT have more than (\d+) characters/.exec(text))) return `must be at most ${m[1]} characters`;
  if ((m = /^must NOT have fewer than (\d+) characters/.exec(text))) return Number(m[1]) === 1 ? 'must not be empty' : `must be at least ${m[1]} characters`;
  if ((m = /^must NOT have more than (\d+) items/.exec(text))) return `must have at most ${m[1]} items`;
  if ((m = /^must be (<=|>=|<|>) (\S+)/.exec(text))) return `must be ${{ '<=': 'at most', '>=': 'at least', '<': 'less than', '>': 'more than' }[m[1]]} ${m[2]}`;
  if (/^must be equal to one of the allowed values/.test(text)) return 'is not one of the choices';
  if (/^must have required property/.test(text)) return 'is required';
  if ((m = /^must be (string|integer|number|boolean|object|array)/.exec(text))) {
    return `must be ${{ string: 'text', integer: 'a whole number', number: 'a number', boolean: 'yes or no', object: 'a group of fields', array: 'a list' }[m[1]]}`;
  }
  return text;
}

/** Whether trying the same request again can succeed: no answer, a time-out, too many requests, or a server error. */
export function retryable(error) {
  const status = error?.status;
  return !status || status === 408 || status === 429 || status >= 500;
}
