/**
 * The database pool's size, beside the pool that src/db/knex.ts makes with it. A module of
 * its own, free of knex, so that src/config.ts can state the default without loading the
 * database driver at start-up.
 */

/**
 * Most connections of a pool when DB_POOL_SIZE is unset. Money movements are bound by WAL flushes at commit
 * (measured: backends mostly wait on WALWrite/WalSync, 2-core PostgreSQL, 50
 * requests in flight): more connections commit together in one flush, and 40
 * moved more per second than 8 or 20, for the service and the bare reference
 * alike. Reads gain nothing and lose little.
 */
export const DEFAULT_DB_POOL_SIZE = 40;
