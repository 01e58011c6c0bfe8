/**
 * The cards' part of the search operation (src/kernel/search.ts): a card by its id or by its
 * last four digits (whole only: four digits say little enough), through the cards'
 * (business_id, last_4_digits) index. The label is what getCard shows of the number, its
 * last four digits: never more of the card's data.
 */
import type { Knex } from 'knex';
import { hitOf, matching, type SearchHit, type SearchTerm } from '../kernel/search.js';

type CardRow = { customer_id: string; last_4_digits: string; type: string; status: string };

/** At most `cap` cards of the business that `term` matches, best first. */
export async function searchCards(db: Knex, businessId: string, term: SearchTerm, cap: number): Promise<SearchHit[]> {
  const cards = db('cards as k').where('k.business_id', businessId).select('k.id', 'k.customer_id', 'k.last_4_digits', 'k.type', 'k.status', 'k.created_at');
  const fields = [{ column: 'k.last_4_digits', field: 'last_4_digits', value: term.lastFour, whole: true }];
  const rows = await matching<CardRow>(db, cards, term, { id: 'k.id', created: 'k.created_at', fields }, cap);
  return rows.map((r) => hitOf('CARD', r, `•••• ${r.last_4_digits} · ${r.type} ${r.status}`, r.customer_id));
}
