/**
 * Service configuration, read once from the environment.
 *
 * PORT (default 3000), DATABASE_URL (any PostgreSQL; when unset an embedded
 * PostgreSQL is started), DATA_DIR (embedded PostgreSQL data, default `.data`),
 * JWT_SECRET (default: generated once and kept in the database),
 * TOKEN_TTL_SECONDS (default 3600), RATE_LIMIT_PER_MINUTE (default 600 per client),
 * SANDBOX (default true: test helpers on, sandbox clients seeded),
 * STATEMENT_MAX_ENTRIES (default 10000: longer periods are 422 STATEMENT_TOO_LARGE),
 * DB_POOL_SIZE (default 40: most database connections the service holds).
 */
export interface Config {
  port: number;
  databaseUrl?: string;
  dataDir: string;
  jwtSecret?: string;
  tokenTtlSeconds: number;
  rateLimitPerMinute: number;
  sandbox: boolean;
  statementMaxEntries: number;
  /** Most connections in the database pool. */
  dbPoolSize: number;
}

/**
 * Default DB_POOL_SIZE. Money movements are bound by WAL flushes at commit
 * (measured: backends mostly wait on WALWrite/WalSync, 2-core PostgreSQL, 50
 * requests in flight): more connections commit together in one flush, and 40
 * moved more per second than 8 or 20, for the service and the bare reference
 * alike. Reads gain nothing and lose little.
 */
export const DEFAULT_DB_POOL_SIZE = 40;

function intFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}

/** Reads the configuration from `env`; throws on a malformed value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: intFrom(env.PORT, 3000, 'PORT'),
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR || '.data',
    jwtSecret: env.JWT_SECRET || undefined,
    tokenTtlSeconds: intFrom(env.TOKEN_TTL_SECONDS, 3600, 'TOKEN_TTL_SECONDS'),
    rateLimitPerMinute: intFrom(env.RATE_LIMIT_PER_MINUTE, 600, 'RATE_LIMIT_PER_MINUTE'),
    sandbox: env.SANDBOX !== 'false',
    statementMaxEntries: intFrom(env.STATEMENT_MAX_ENTRIES, 10_000, 'STATEMENT_MAX_ENTRIES'),
    dbPoolSize: Math.max(1, intFrom(env.DB_POOL_SIZE, DEFAULT_DB_POOL_SIZE, 'DB_POOL_SIZE')),
  };
}
