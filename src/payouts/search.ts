/**
 * The payouts' part of the search operation (src/kernel/search.ts): a payout by its id or
 * its external reference (whole, prefix or part; the payouts_search trigram index), a bulk
 * payout by its id. Labels are what getPayoutStatus and getBulkPayoutStatus show.
 */
import type { Knex } from 'knex';
import { formatMoney } from '../kernel/money.js';
import { hitOf, matching, type SearchHit, type SearchTerm } from '../kernel/search.js';

type PayoutRow = { customer_id: string; external_reference: string | null; amount: string; currency: string };

/** At most `cap` payouts of the business that `term` matches, best first. */
export async function searchPayouts(db: Knex, businessId: string, term: SearchTerm, cap: number): Promise<SearchHit[]> {
  const payouts = db('payouts as p').where('p.business_id', businessId).select('p.id', 'p.customer_id', 'p.external_reference', 'p.amount', 'p.currency', 'p.created_at');
  const fields = [{ column: 'p.external_reference', field: 'external_reference', value: term.text }];
  const rows = await matching<PayoutRow>(db, payouts, term, { id: 'p.id', created: 'p.created_at', fields }, cap);
  return rows.map((r) => hitOf('PAYOUT', r, r.external_reference ?? `${formatMoney(r.amount)} ${r.currency}`, r.customer_id));
}

/** The bulk payout whose id `term` is, if the business has it (a bulk payout has no other searchable field). */
export async function searchBulkPayouts(db: Knex, businessId: string, term: SearchTerm, cap: number): Promise<SearchHit[]> {
  const bulks = db('bulk_payouts as b').where('b.business_id', businessId).select('b.id', 'b.item_count', 'b.created_at');
  const rows = await matching<{ item_count: number }>(db, bulks, term, { id: 'b.id', created: 'b.created_at', fields: [] }, cap);
  return rows.map((r) => hitOf('BULK_PAYOUT', r, `Bulk payout of ${r.item_count} item${r.item_count === 1 ? '' : 's'}`));
}
