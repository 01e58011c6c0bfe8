/**
 * The indexes of the search operation (openapi/DESIGN.md, "Search"): a part of a reference,
 * name, account number or mobile number is found through a trigram index (pg_trgm) of the
 * business's rows, one GIN index per table whose first column is `business_id` (btree_gin
 * gives GIN its uuid equality), so that a search reads the posting lists of one business and
 * of `q`'s trigrams, never the table; a card by its last four digits through a btree.
 * Ids are found through the primary keys. Both extensions ship with PostgreSQL's contrib
 * (the embedded PostgreSQL's and Debian's `postgresql-15`); on Citus, the coordinator
 * creates them on every node before a distributed table's index needs them.
 */
import type { Knex } from 'knex';

/** Each search index: its name, its table and its trigram columns. */
export const SEARCH_INDEXES: readonly [string, string, readonly string[]][] = [
  ['payouts_search', 'payouts', ['external_reference']],
  ['customers_search', 'customers', ['full_name', 'mobile_number', 'external_reference']],
  ['accounts_search', 'accounts', ['name', 'account_number', 'external_reference']],
  ['transactions_search', 'transactions', ['reference', 'external_reference']],
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  await knex.raw('CREATE EXTENSION IF NOT EXISTS btree_gin');
  for (const [name, table, columns] of SEARCH_INDEXES) {
    await knex.raw(`CREATE INDEX ${name} ON ${table} USING gin (business_id, ${columns.map((c) => `${c} gin_trgm_ops`).join(', ')})`);
  }
  await knex.raw('CREATE INDEX cards_business_id_last_4_digits_index ON cards (business_id, last_4_digits)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX cards_business_id_last_4_digits_index');
  for (const [name] of SEARCH_INDEXES) await knex.raw(`DROP INDEX ${name}`);
}
