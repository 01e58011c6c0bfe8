/**
 * The database pool's size, beside the pool that src/db/knex.ts makes with it. A module of
 * its own, free of knex, so that src/config.ts can state the default without loading the
 * database driver at start-up.
 */

/**
 * Most connections of a pool when DB_POOL_SIZE is unset. Money movements are bound by WAL flushes at commit
 * (backends mostly wait on WALWrite/WalSync under load): more connections commit
 * together in one flush, so 40 move more per second than 8 or 20, for the service and
 * the bare reference alike. Reads gain nothing and lose little.
 */
export const DEFAULT_DB_POOL_SIZE = 40;
