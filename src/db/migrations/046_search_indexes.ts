/**
 * The indexes of the search operation (openapi/DESIGN.md, "Search"): a part of a reference,
 * name, account number or mobile number is found through a trigram index (pg_trgm), one GIN
 * index per table over its searched columns, so that a search reads the rows holding `q`'s
 * trigrams, never the table, and keeps its business's; a card by its last four digits through
 * a btree led by `business_id`. Ids are found through the primary keys. The trigram indexes
 * hold no `business_id` (btree_gin could add it): the planner prices such an index at the
 * business's whole posting list and reads the table instead. pg_trgm ships with PostgreSQL's
 * contrib (the embedded PostgreSQL's and Debian's `postgresql-15`); on Citus, the coordinator
 * creates it on every node before a distributed table's index needs it.
 */
import type { Knex } from 'knex';

/** Each search index: its name, its table and its trigram columns. */
const SEARCH_INDEXES: readonly [string, string, readonly string[]][] = [
  ['payouts_search', 'payouts', ['external_reference']],
  ['customers_search', 'customers', ['full_name', 'mobile_number', 'external_reference']],
  ['accounts_search', 'accounts', ['name', 'account_number', 'external_reference']],
  ['transactions_search', 'transactions', ['reference', 'external_reference']],
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  for (const [name, table, columns] of SEARCH_INDEXES) {
    await knex.raw(`CREATE INDEX ${name} ON ${table} USING gin (${columns.map((c) => `${c} gin_trgm_ops`).join(', ')})`);
  }
  await knex.raw('CREATE INDEX cards_business_id_last_4_digits_index ON cards (business_id, last_4_digits)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX cards_business_id_last_4_digits_index');
  for (const [name] of SEARCH_INDEXES) await knex.raw(`DROP INDEX ${name}`);
}
