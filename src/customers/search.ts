/**
 * The customers' part of the search operation (src/kernel/search.ts): a customer by its id,
 * its full name, its mobile number (as stored: digits with the country code, so a local
 * `05…` form is found too) or its external reference, through the customers_search trigram
 * index. The label is what getCustomer shows: the name, else the mobile number.
 */
import type { Knex } from 'knex';
import { hitOf, matching, type SearchField, type SearchHit, type SearchTerm } from '../kernel/search.js';

/** At most `cap` customers of the business that `term` matches, best first. */
export async function searchCustomers(db: Knex, businessId: string, term: SearchTerm, cap: number): Promise<SearchHit[]> {
  const customers = db('customers as c').where('c.business_id', businessId).select('c.id', 'c.full_name', 'c.mobile_number', 'c.created_at');
  const fields: SearchField[] = [
    { column: 'c.full_name', field: 'name', value: term.text },
    ...term.mobileNumbers.map((value) => ({ column: 'c.mobile_number', field: 'mobile_number', value })),
    { column: 'c.external_reference', field: 'external_reference', value: term.text },
  ];
  const rows = await matching<{ full_name: string | null; mobile_number: string }>(db, customers, term, { id: 'c.id', created: 'c.created_at', fields }, cap);
  return rows.map((r) => hitOf('CUSTOMER', r, r.full_name ?? r.mobile_number, r.id));
}
