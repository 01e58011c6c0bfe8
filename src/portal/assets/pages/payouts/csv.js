/**
 * A bulk payout file in the browser: the CSV a business uploads (RFC 4180, UTF-8, a header
 * line naming the columns) taken apart into the items of core.yaml `createBulkPayout`, and
 * the preview of what the service will do with them before anything is sent.
 *
 * The columns are the fields of core.yaml BulkPayoutItemInput (`payout_amount`,
 * `payout_purpose`, `external_reference`, `customer_id`, `walletAccountNumber`,
 * `mobileNumber`); an empty cell leaves its field out, as a request without it.
 *
 * Two kinds of finding, as the service makes them:
 * - file problems: what makes the whole request 400 `VALIDATION_ERROR` (the request
 *   schema: 1 to 1,000 items, no unknown field, each value 1 to its maxLength characters
 *   without control characters). The file cannot be sent until they are fixed.
 * - row rejections: what the service rejects one item at a time with `VALIDATION_ERROR`,
 *   in its order (src/payouts/bulk.ts `formatRefusal`, then
 *   src/payouts/sql/payout_create.sql with src/ledger/sql/ledger_amount_problem.sql), with
 *   the words its report gives (`<field>: <reason>`). The rules that need the service's
 *   data (an unknown or inactive customer, the whitelist, the payout account's funds) are
 *   decided when the file is sent and appear in the batch report.
 *
 * Pure functions without DOM access, so that a test can compare them with the service.
 */

/** The request schema's fields and their maxLength (core.yaml BulkPayoutItemInput). */
export const ITEM_FIELDS = {
  payout_amount: 64,
  payout_purpose: 140,
  external_reference: 128,
  customer_id: 64,
  walletAccountNumber: 64,
  mobileNumber: 64,
};

/** Items in one request (core.yaml BulkPayoutCreateRequest). */
export const MAX_ITEMS = 1000;

/** The receiver identifiers in the order the service checks their format (src/payouts/bulk.ts). */
const FORMATS = [
  ['customer_id', /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a UUID'],
  ['walletAccountNumber', /^[0-9]{12}$/, 'must be 12 digits'],
  ['mobileNumber', /^[1-9][0-9]{7,14}$/, 'must be 8 to 15 digits with the country code'],
];

/** An amount the ledger accepts (src/ledger/sql/ledger_amount_problem.sql), and zero. */
const AMOUNT = /^[0-9]{1,15}([.][0-9]{1,2})?$/;
const ZERO = /^0+([.]0{1,2})?$/;

/** Characters the request schema refuses in every value (`^[^\x00-\x1F\x7F]...$`). */
const CONTROL = /[\x00-\x1F\x7F]/;

/**
 * Parses RFC 4180 CSV text into rows of cells: fields separated by commas, records by
 * CRLF or LF, a quoted field may hold commas, line breaks and doubled quotes. A leading
 * byte order mark is dropped; lines with no text at all are skipped. Throws an Error on a
 * quote that is never closed.
 * @param {string} text
 * @returns {{ cells: string[], line: number }[]} each record with its 1-based line number
 */
export function parseCsv(text) {
  const src = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const records = [];
  let cells = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let touched = false;
  const endRecord = () => {
    cells.push(cell);
    if (touched || cells.length > 1 || cell !== '') records.push({ cells, line: start });
    cells = [];
    cell = '';
    touched = false;
  };
  for (let i = 0; i < src.length; i++) {
    const ch = src[i];
    if (quoted) {
      if (ch === '"' && src[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') {
        quoted = false;
      } else {
        if (ch === '\n') line++;
        cell += ch;
      }
    } else if (ch === '"') {
      quoted = true;
      touched = true;
    } else if (ch === ',') {
      cells.push(cell);
      cell = '';
    } else if (ch === '\n' || (ch === '\r' && src[i + 1] === '\n')) {
      if (ch === '\r') i++;
      endRecord();
      line++;
      start = line;
    } else {
      cell += ch;
    }
  }
  if (quoted) throw new Error(`Line ${start}: a quoted field is not closed.`);
  if (cell !== '' || cells.length > 0 || touched) endRecord();
  return records;
}

/**
 * The rejection the service gives an item for its values alone, or null when only the
 * service's data can decide. Mirrors the order of src/payouts/bulk.ts (identifier formats)
 * and payout_create (amount, then exactly one receiver identifier).
 * @param {Record<string, string>} item a BulkPayoutItemInput
 * @returns {{ code: 'VALIDATION_ERROR', detail: string } | null} detail as the report words it
 */
export function itemRejection(item) {
  for (const [field, pattern, reason] of FORMATS) {
    if (item[field] !== undefined && !pattern.test(item[field])) return { code: 'VALIDATION_ERROR', detail: `${field}: ${reason}` };
  }
  const amount = item.payout_amount;
  if (amount === undefined || !AMOUNT.test(amount)) {
    return { code: 'VALIDATION_ERROR', detail: 'payout_amount: must be a decimal string with at most two decimals' };
  }
  if (ZERO.test(amount)) return { code: 'VALIDATION_ERROR', detail: 'payout_amount: must be greater than 0' };
  const given = FORMATS.filter(([field]) => item[field] !== undefined).length;
  if (given !== 1) {
    return {
      code: 'VALIDATION_ERROR',
      detail: `customer_id: exactly one of customer_id, walletAccountNumber and mobileNumber must be present (${given} given)`,
    };
  }
  return null;
}

/**
 * The preview of a bulk payout file: the items to send (one per data row, in order, so that
 * the report's `item_index` is the row's position), each row's rejection, and the problems
 * that make the whole file unsendable.
 * @param {string} text the CSV file's text
 * @returns {{
 *   items: Record<string, string>[],
 *   rows: { index: number, line: number, item: Record<string, string>, rejection: { code: string, detail: string } | null }[],
 *   fileProblems: string[],
 * }}
 */
export function bulkPreview(text) {
  let records;
  try {
    records = parseCsv(text);
  } catch (err) {
    return { items: [], rows: [], fileProblems: [err.message] };
  }
  const fileProblems = [];
  const [header, ...data] = records;
  if (!header) return { items: [], rows: [], fileProblems: ['The file is empty: a header line and at least one row are needed.'] };
  const columns = header.cells.map((name) => name.trim());
  for (const name of columns) {
    if (!Object.hasOwn(ITEM_FIELDS, name)) fileProblems.push(`Column "${name}" is not a bulk payout field (${Object.keys(ITEM_FIELDS).join(', ')}).`);
  }
  if (new Set(columns).size !== columns.length) fileProblems.push('A column appears twice in the header line.');
  if (data.length === 0) fileProblems.push('The file has no rows below its header line.');
  if (data.length > MAX_ITEMS) fileProblems.push(`The file has ${data.length} rows; one bulk payout takes at most ${MAX_ITEMS}.`);
  const rows = data.map((record, index) => {
    if (record.cells.length !== columns.length) {
      fileProblems.push(`Line ${record.line}: ${record.cells.length} ${record.cells.length === 1 ? 'field' : 'fields'} where the header has ${columns.length}.`);
    }
    const item = {};
    columns.forEach((name, i) => {
      const value = record.cells[i];
      if (value === undefined || value === '' || !Object.hasOwn(ITEM_FIELDS, name)) return;
      if (value.length > ITEM_FIELDS[name]) fileProblems.push(`Line ${record.line}: ${name} is longer than ${ITEM_FIELDS[name]} characters.`);
      if (CONTROL.test(value)) fileProblems.push(`Line ${record.line}: ${name} holds a control character (a line break, a tab).`);
      item[name] = value;
    });
    return { index, line: record.line, item, rejection: itemRejection(item) };
  });
  return { items: rows.map((r) => r.item), rows, fileProblems };
}
