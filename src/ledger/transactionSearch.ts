/**
 * The transactions' part of the search operation (src/kernel/search.ts): a transaction by
 * its id, its `TXN` reference or its external reference, through the transactions_search
 * trigram index. The label is what getTransaction shows: the reference, type and amount.
 */
import type { Knex } from 'knex';
import { formatMoney } from '../kernel/money.js';
import { hitOf, matching, type SearchField, type SearchHit, type SearchTerm } from '../kernel/search.js';

type TransactionRow = { reference: string; type: string; amount: string; currency: string };

/** At most `cap` transactions of the business that `term` matches, best first. */
export async function searchTransactions(db: Knex, businessId: string, term: SearchTerm, cap: number): Promise<SearchHit[]> {
  const transactions = db('transactions as t').where('t.business_id', businessId).select('t.id', 't.reference', 't.type', 't.amount', 't.currency', 't.created_at');
  const fields: SearchField[] = ['reference', 'external_reference'].map((field) => ({ column: `t.${field}`, field, value: term.text }));
  const rows = await matching<TransactionRow>(db, transactions, term, { id: 't.id', created: 't.created_at', fields }, cap);
  return rows.map((r) => hitOf('TRANSACTION', r, `${r.reference} · ${r.type} ${formatMoney(r.amount)} ${r.currency}`));
}
