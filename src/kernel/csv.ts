/**
 * CSV documents (RFC 4180, UTF-8, header line first, via csv-stringify): the one rule for
 * every CSV the service answers, and a list's export streamed page by page.
 *
 * A cell that would start like a spreadsheet formula (`=`, `+`, `-`, `@`, a tab or a carriage
 * return) is prefixed with an apostrophe, so that a spreadsheet shows it as text rather than
 * running it (OWASP, "CSV Injection"); a signed decimal number (`-997480.00`, a mobile number
 * `+966501234567`) is left as it is: a spreadsheet reads one as a number, never a formula.
 * An empty cell is a null.
 */
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { Page, PageQuery } from './pagination.js';

/** A value a CSV cell holds; null and undefined are an empty cell, an object is its JSON. */
export type CsvValue = string | number | boolean | null | undefined | object;

/**
 * A column of a CSV document: the name of a field of the item (its header and its value), or
 * a header with the function that reads the cell from an item.
 */
export type CsvColumn<T> = (keyof T & string) | { name: string; value: (item: T) => CsvValue };

/** Items a streamed export reads by each keyset page of its list: its memory is one page's. */
export const CSV_EXPORT_PAGE = 500;
/**
 * Rows per piece of text a stream hands on (some 15 KiB, an ordinary short-lived string);
 * one piece per page would be a string past V8's 128 KiB regular objects (openapi/DESIGN.md,
 * "Memory: the old generation bounded").
 */
export const CSV_PIECE_ROWS = 100;

/** `value` as the text of a cell safe to open in a spreadsheet (see the module's comment). */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /^[=+\-@\t\r]/.test(text) && !/^[+-]\d+(\.\d+)?$/.test(text) ? `'${text}` : text;
}

const nameOf = <T>(column: CsvColumn<T>): string => (typeof column === 'string' ? column : column.name);
const valueOf = <T>(column: CsvColumn<T>, item: T): CsvValue => (typeof column === 'string' ? (item[column] as CsvValue) : column.value(item));

/** The header line of `columns`, with its line ending. */
export function csvHeader<T>(columns: readonly CsvColumn<T>[]): string {
  return stringify([columns.map(nameOf)]);
}

/** The lines of `items` under `columns` (each cell through `csvCell`), each with its line ending. */
export function csvRows<T>(columns: readonly CsvColumn<T>[], items: readonly T[]): string {
  return stringify(items.map((item) => columns.map((column) => csvCell(valueOf(column, item)))));
}

/** `items` as a whole CSV document under `columns`: the header line, then a line per item. */
export function csvText<T>(columns: readonly CsvColumn<T>[], items: readonly T[]): string {
  return csvHeader(columns) + csvRows(columns, items);
}

/**
 * A cursor-paged list (a `list(page)` resolving to the documents' Page shape, newest first)
 * as one CSV document, streamed: the header line, then every item of every page in the
 * list's order. The first page is read before this resolves, so that a refusal (a filter the
 * list rejects, an unknown parent) is an ordinary problem response; the next pages are read
 * CSV_EXPORT_PAGE items at a time by the list's own cursor, as the client takes the text, so
 * memory stays one page's whatever the list holds. A database failure part way ends the
 * stream short.
 */
export async function streamListCsv<T>(columns: readonly CsvColumn<T>[], list: (page: Required<Pick<PageQuery, 'limit'>> & PageQuery) => Promise<Page<T>>): Promise<Readable> {
  const first = await list({ limit: CSV_EXPORT_PAGE });
  async function* lines(): AsyncGenerator<string> {
    yield csvHeader(columns);
    let page = first;
    for (;;) {
      for (let i = 0; i < page.data.length; i += CSV_PIECE_ROWS) yield csvRows(columns, page.data.slice(i, i + CSV_PIECE_ROWS));
      if (!page.has_more || !page.next_cursor) return;
      page = await list({ limit: CSV_EXPORT_PAGE, cursor: page.next_cursor });
    }
  }
  return Readable.from(lines(), { objectMode: false });
}
