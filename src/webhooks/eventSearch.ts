/**
 * The events' part of the search operation (src/kernel/search.ts): an event by its id (an
 * event has no other searchable field), through the primary key. The label is its code,
 * as listEvents shows it.
 */
import type { Knex } from 'knex';
import { hitOf, matching, type SearchHit, type SearchTerm } from '../kernel/search.js';
import { TEST_EVENT_CODE } from './endpoints.js';

/** The event whose id `term` is, if the business recorded it. */
export async function searchEvents(db: Knex, businessId: string, term: SearchTerm, cap: number): Promise<SearchHit[]> {
  const events = db('outbox_events as e').where('e.business_id', businessId).whereNot('e.code', TEST_EVENT_CODE).select('e.id', 'e.code', 'e.created_at');
  const rows = await matching<{ code: string }>(db, events, term, { id: 'e.id', created: 'e.created_at', fields: [] }, cap);
  return rows.map((r) => hitOf('EVENT', r, r.code));
}
