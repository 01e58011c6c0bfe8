/**
 * The search operation's one set of matching rules (openapi/DESIGN.md, "Search"), which each
 * capability's search function applies to its own tables:
 *
 * - `searchTerm(q)` reads what `q` can be: its text (trimmed), a UUID (an id, matched whole
 *   and only against ids), a mobile number in its stored form (digits with the country code:
 *   `0501234567`, `+966 50 123 4567` and `00966501234567` are `966501234567`) and a card's
 *   last four digits (exactly four digits);
 * - `matching(db, query, term, shape, cap)` narrows a query of the business's rows to those
 *   whose id is the UUID or one of whose fields holds the text, ignoring case (ILIKE, with
 *   `%`, `_` and `\` taken literally), and ranks each row by its best match: EXACT (the
 *   whole id or field), then PREFIX, then PART; among equals the newest first; at most `cap`
 *   rows. The part match is what a trigram index (pg_trgm, migration 044) serves;
 * - `hitOf(type, row, label, customerId)` is the documented SearchHit of a ranked row, and
 *   `bestHits(hits, limit)` merges the capabilities' hits, best first.
 */
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { invalidField } from './errors.js';

export type SearchHit = components['schemas']['SearchHit'];
type Match = SearchHit['match'];

/** Most hits of one type in one answer: one type cannot crowd out the others. */
export const SEARCH_TYPE_CAP = 10;

/** The country code a local mobile number (`05…`) is stored with. */
const COUNTRY_CODE = '966';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a search's `q` can be (see the module comment); null where it cannot be that. */
export interface SearchTerm {
  text: string;
  uuid: string | null;
  /** The mobile number in its stored form, and the digits as typed when they differ (a part may start with 0). */
  mobileNumbers: string[];
  lastFour: string | null;
}

/**
 * The SearchTerm of `q` (the operation's validation bounds its length and its ends). Throws
 * 400 VALIDATION_ERROR for a control character, which no stored field holds (and PostgreSQL's
 * text cannot carry a NUL).
 */
export function searchTerm(q: string): SearchTerm {
  const text = q.trim();
  if (/[\x00-\x1f\x7f]/.test(text)) throw invalidField('/query/q', 'must not hold a control character');
  const phone = /^\+?[0-9][0-9 -]*$/.test(text) ? text.replace(/[^0-9]/g, '') : null;
  const stored = phone === null ? null : phone.startsWith('00') ? phone.slice(2) : phone.startsWith('0') ? COUNTRY_CODE + phone.slice(1) : phone;
  return {
    text,
    uuid: UUID.test(text) ? text.toLowerCase() : null,
    mobileNumbers: [...new Set([stored, phone])].filter((n): n is string => n !== null && n.length >= 3),
    lastFour: /^[0-9]{4}$/.test(text) ? text : null,
  };
}

/**
 * A field a capability searches: its qualified `column`, the `field` a hit names
 * (SearchHit.matched_field), the `value` looked for (null: this term cannot match it) and
 * `whole` when only the whole value matches (a card's last four digits).
 */
export interface SearchField {
  column: string;
  field: SearchHit['matched_field'];
  value: string | null;
  whole?: boolean;
}

/** What `matching` adds to each row: `found`, `<rank> <field>` (rank 0 EXACT, 1 PREFIX, 2 PART). */
export interface Found {
  found: string;
  created_at: Date;
}

const RANKS: Match[] = ['EXACT', 'PREFIX', 'PART'];

function literal(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * The rows of `query` (one business's rows, its columns selected) that `term` matches by
 * `id` or by `fields`, with their `found` rank (see Found), best first, then newest first
 * (`created`), at most `cap`. None, without a query, when nothing can match (no UUID and no
 * field's value).
 */
export async function matching<Row>(
  db: Knex,
  query: Knex.QueryBuilder,
  term: SearchTerm,
  shape: { id: string; created: string; fields: SearchField[] },
  cap: number,
): Promise<(Row & Found & { id: string })[]> {
  // A UUID is an id: it is looked for whole, by the primary key, not in the other fields.
  const fields = term.uuid ? [] : shape.fields.filter((f) => f.value !== null);
  if (!term.uuid && !fields.length) return [];
  const conditions: string[] = [];
  const conditionBindings: string[] = [];
  const ranks: string[] = [];
  const rankBindings: string[] = [];
  if (term.uuid) {
    conditions.push('?? = ?::uuid');
    conditionBindings.push(shape.id, term.uuid);
    ranks.push(`WHEN ?? = ?::uuid THEN '0 id'`);
    rankBindings.push(shape.id, term.uuid);
  }
  for (const f of fields) {
    const value = literal(f.value as string);
    conditions.push(f.whole ? '?? = ?' : '?? ILIKE ?');
    conditionBindings.push(f.column, f.whole ? (f.value as string) : `%${value}%`);
  }
  RANKS.forEach((_, rank) => {
    for (const f of fields) {
      if (f.whole && rank > 0) continue;
      const value = literal(f.value as string);
      ranks.push(`WHEN ?? ${f.whole ? '=' : 'ILIKE'} ? THEN '${rank} ${f.field}'`);
      rankBindings.push(f.column, f.whole ? (f.value as string) : [value, `${value}%`, `%${value}%`][rank]);
    }
  });
  return query
    .whereRaw(`(${conditions.join(' OR ')})`, conditionBindings)
    .select(db.raw(`CASE ${ranks.join(' ')} END AS found`, rankBindings))
    .orderBy([{ column: 'found' }, { column: shape.created, order: 'desc' }])
    .limit(cap);
}

/** Control characters would make a label no document allows: a space stands for each. */
function printable(label: string): string {
  return label.replace(/[\x00-\x1f\x7f]/g, ' ').slice(0, 300);
}

/** The SearchHit of a row ranked by `matching`. */
export function hitOf(type: SearchHit['type'], row: Found & { id: string }, label: string, customerId?: string | null): SearchHit {
  const [rank, field] = row.found.split(' ');
  return {
    type,
    id: row.id,
    label: printable(label) || row.id,
    matched_field: field as SearchHit['matched_field'],
    match: RANKS[Number(rank)],
    ...(customerId ? { customer_id: customerId } : {}),
    created_at: row.created_at.toISOString(),
  };
}

/** `lists` (each type's hits, in the order of types) merged: best match first, then the types' order, then newest; at most `limit`. */
export function bestHits(lists: SearchHit[][], limit: number): SearchHit[] {
  const ranked = lists.flatMap((hits, order) => hits.map((hit) => ({ hit, order })));
  ranked.sort((a, b) => RANKS.indexOf(a.hit.match) - RANKS.indexOf(b.hit.match) || a.order - b.order || b.hit.created_at.localeCompare(a.hit.created_at));
  return ranked.slice(0, limit).map((r) => r.hit);
}
