/**
 * The classes of the service's tables on a database distributed by business on Citus
 * (docs/scale-out.md; placed by ./distribution.ts): every table not named below is a tenant
 * table, distributed by `business_id`.
 */

/** Reference tables (a copy on every node), each with why it is global. */
export const REFERENCE_TABLES: Record<string, string> = {
  businesses: 'the tenants themselves, keyed by their own id; every tenant table’s business_id points here',
  api_clients: 'the client-id directory: the token endpoint starts from a client id alone; platform clients belong to no business',
  settings: "the service's own secrets and keys, shared by every instance",
  sql_definitions: "the applier's record of the SQL definitions applied",
};

/** Tables of the coordinator alone (local tables), never written with a business's rows. */
export const COORDINATOR_TABLES: Record<string, string> = {
  rate_limits: 'request counters per client or address across businesses, unlogged, worth nothing after a restart',
  knex_migrations: "the migrator's record of the schema's version",
  knex_migrations_lock: "the migrator's lock",
};

/**
 * Directories: a value unique across businesses → its business and row, written by the
 * service in the transaction that writes the row, each distributed by that value.
 */
export const DIRECTORY_TABLES: Record<string, string> = {
  account_numbers: 'an account number names one account across businesses',
  card_tokens: 'a card token names one card across businesses',
  card_pans: 'a PAN (fingerprint, generation) is drawn once across businesses',
  portal_user_emails: 'an email names one portal user across businesses: sign-in starts from the email alone',
};

/** The column each directory is distributed by. */
export const DIRECTORY_KEYS: Record<keyof typeof DIRECTORY_TABLES, string> = {
  account_numbers: 'account_number',
  card_tokens: 'token',
  card_pans: 'pan_fingerprint',
  portal_user_emails: 'email',
};

/** The tenant table whose colocation group every tenant table and delegated function joins. */
export const COLOCATION_ANCHOR = 'labels';

/** The tenant tables: every table of the schema not named global. */
export function tenantTables(all: string[]): string[] {
  return all.filter((t) => !(t in REFERENCE_TABLES) && !(t in COORDINATOR_TABLES) && !(t in DIRECTORY_TABLES));
}
