/**
 * The tables of the service schema that are not a business's data, by how a distributed
 * schema keeps them (scripts/citus/distribute.sql, docs/scale-out.md), each with why.
 * Every other table is a tenant table, distributed by `business_id`
 * (test/platform/distribution.test.ts checks the rules, test/platform/singleBusiness.test.ts
 * that a transaction writes one business's rows).
 */

/** Reference tables (Citus: a copy on every node), each with why it is global. */
export const REFERENCE_TABLES: Record<string, string> = {
  businesses: 'the tenants themselves, keyed by their own id; every tenant table’s business_id points here',
  api_clients: 'the client-id directory: the token endpoint starts from a client id alone; platform clients belong to no business',
  settings: "the service's own secrets and keys, shared by every instance",
  sql_definitions: "the applier's record of the SQL definitions applied",
};

/** Tables of the coordinator alone (Citus: local tables), never written with a business's rows. */
export const COORDINATOR_TABLES: Record<string, string> = {
  rate_limits: 'request counters per client or address across businesses, unlogged, worth nothing after a restart',
  knex_migrations: "the migrator's record of the schema's version",
  knex_migrations_lock: "the migrator's lock",
};

/**
 * Directories (Citus: distributed by their own key, not colocated): a value unique across
 * businesses → its business and row, written in the transaction that writes the row
 * (src/db/migrations/025_business_keys.ts).
 */
export const DIRECTORY_TABLES: Record<string, string> = {
  account_numbers: 'an account number names one account across businesses',
  card_tokens: 'a card token names one card across businesses',
  card_pans: 'a PAN (fingerprint, generation) is drawn once across businesses',
};

