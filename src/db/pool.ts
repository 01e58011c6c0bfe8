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

/**
 * How long (ms) a pooled connection may sit idle before the pool closes it: ten minutes, as
 * long as Citus keeps a coordinator's connection to a worker (`citus.max_cached_connection_lifetime`).
 * A new connection starts cold, with no relation, catalog or plan cached in its backend (on a
 * Citus worker, for each of the business's shards it touches), so a pool that lets connections
 * go after the 30 s default and opens them again at the next burst pays that warm-up again and
 * again under a steady low rate. HikariCP's advice is the same (keep a pool's connections, a
 * fixed-size pool); a connection held idle costs its backend's memory only.
 */
export const DB_POOL_IDLE_MS = 10 * 60_000;
