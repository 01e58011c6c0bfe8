/**
 * The wallets' part of the search operation (src/kernel/search.ts): a wallet (an account of
 * kind WALLET, the ledger's table below this room) by its id, its name, its account number
 * or its external reference, through the accounts_search trigram index. The label is what
 * getWallet shows: the name and the account number.
 */
import type { Knex } from 'knex';
import { hitOf, matching, type SearchField, type SearchHit, type SearchTerm } from '../kernel/search.js';

/** At most `cap` wallets of the business that `term` matches, best first. */
export async function searchWallets(db: Knex, businessId: string, term: SearchTerm, cap: number): Promise<SearchHit[]> {
  const wallets = db('accounts as a').where({ 'a.business_id': businessId, 'a.kind': 'WALLET' }).select('a.id', 'a.name', 'a.account_number', 'a.created_at');
  const fields: SearchField[] = ['account_number', 'name', 'external_reference'].map((field) => ({ column: `a.${field}`, field, value: term.text }));
  const rows = await matching<{ name: string | null; account_number: string }>(db, wallets, term, { id: 'a.id', created: 'a.created_at', fields }, cap);
  return rows.map((r) => hitOf('WALLET', r, r.name ? `${r.name} · ${r.account_number}` : r.account_number));
}
