/**
 * The shape of the service's configuration. It lives in the kernel because every
 * layer reads it (Services carries it); src/config.ts reads it from the environment
 * and checks it, and may import from the kernel and db, never the reverse.
 */

/** The service's configuration, read from the environment by loadConfig (src/config.ts: its module comment describes each variable). */
export interface Config {
  port: number;
  /** Address the HTTP server binds (HOST). */
  host: string;
  databaseUrl?: string;
  dataDir: string;
  jwtSecret?: string;
  tokenTtlSeconds: number;
  rateLimitPerMinute: number;
  /** Requests per minute per address of callers that have not authenticated (0 = off). */
  rateLimitPerAddressPerMinute: number;
  sandbox: boolean;
  corsOrigins: '*' | string[];
  logLevel: string;
  logFile?: string;
  otpHashKey?: string;
  providerTimeoutMs: number;
  /** The old name of the national-id key and index key (IDENTITY_DATA_KEY), and the key of national ids sealed before key versions. */
  identityDataKey?: string;
  nationalIdKey?: string;
  nationalIdKeyVersion: number;
  /** Older national-id keys by version, still readable. */
  nationalIdPreviousKeys: Record<number, string>;
  /** Key of the national ids' lookup hash (never rotated). */
  nationalIdIndexKey?: string;
  identityProviderCallbackSecret?: string;
  screeningProviderCallbackSecret?: string;
  cardDataKey?: string;
  cardDataKeyVersion: number;
  /** Older card data keys by version, still readable. */
  cardDataPreviousKeys: Record<number, string>;
  cardFingerprintKey?: string;
  webhookSecretKey?: string;
  webhookSecretKeyVersion: number;
  /** Older webhook secret keys by version, still readable. */
  webhookSecretPreviousKeys: Record<number, string>;
  idempotencyReplayKey?: string;
  idempotencyReplayKeyVersion: number;
  /** Older idempotency replay keys by version, still readable. */
  idempotencyReplayPreviousKeys: Record<number, string>;
  totpSecretKey?: string;
  totpSecretKeyVersion: number;
  /** Older TOTP secret keys by version, still readable. */
  totpSecretPreviousKeys: Record<number, string>;
  /** A portal session ends after this many minutes without a request (PORTAL_SESSION_IDLE_MINUTES). */
  portalSessionIdleMinutes: number;
  /** A portal session ends this many minutes after its sign-in, however busy (PORTAL_SESSION_LIFETIME_MINUTES). */
  portalSessionLifetimeMinutes: number;
  /** A step marked `x-reauthentication` needs a TOTP code given within this many minutes (PORTAL_REAUTHENTICATION_MINUTES). */
  portalReauthenticationMinutes: number;
  /**
   * A money movement through a portal session whose amount (in the wallet's currency units,
   * a decimal string) is at or above this needs a recent TOTP code too, as marked
   * `x-reauthentication: { amount: … }` (PORTAL_REAUTHENTICATION_AMOUNT; src/http/reauthentication.ts).
   */
  portalReauthenticationAmount: string;
  /** Sign-in attempts per minute per address, refused before any password is checked (SIGN_IN_RATE_LIMIT_PER_ADDRESS_PER_MINUTE; 0 = off). */
  signInRateLimitPerAddressPerMinute: number;
  /** Most connections in the database pool (DB_POOL_SIZE; default DEFAULT_DB_POOL_SIZE of src/db/pool.ts). */
  dbPoolSize: number;
  /** False: statements are sent unnamed (pooler in transaction mode). */
  dbPreparedStatements: boolean;
  /** How long a request that is safe to send again (a read, a write with an Idempotency-Key) waits for an unreachable database, e.g. through a failover, before its 503 (DB_FAILOVER_WAIT_MS; src/db/failover.ts). */
  dbFailoverWaitMs: number;
  webhookTimeoutMs: number;
  webhookRetryScale: number;
  webhookConcurrency: number;
  /** An endpoint whose every attempt failed for this many hours is disabled (src/webhooks/health.ts). */
  webhookDisableFailingAfterHours: number;
  /** Background transactions at a time per instance (BACKGROUND_CONCURRENCY, src/kernel/scheduling/background.ts). */
  backgroundConcurrency: number;
  /** The background lane's rest after each payout transaction an API request overlapped, as a multiple of its time; 2.5 × that after the webhooks' (BACKGROUND_REST_RATIO, src/kernel/scheduling/background.ts). */
  backgroundRestRatio: number;
  jobPollingIntervalMs: number;
  jobMaintenanceIntervalSeconds: number;
  /** How long a payout of the sandbox rail stays PROCESSING before its automatic outcome (ms). */
  payoutProcessingMs: number;
  /** The payout rail's submission endpoint; unset: the sandbox rail (sandbox only). */
  payoutRailUrl?: string;
  /** HMAC secret shared with the payout rail (submissions and callbacks). */
  payoutRailCallbackSecret?: string;
  /** How many days audit events are kept before the purge deletes them (AUDIT_RETENTION_DAYS, src/audit/). */
  auditRetentionDays: number;
  /** How many days API requests are kept in the request log (API_REQUEST_LOG_DAYS, src/audit/requestLog.ts). */
  apiRequestLogDays: number;
  /** The most requests the request log keeps per business (API_REQUEST_LOG_MAX_ROWS); older ones are purged. */
  apiRequestLogMaxRows: number;
  /** The most requests queued per instance for the request log (API_REQUEST_LOG_QUEUE); past it they are dropped and counted; 0 records none. */
  apiRequestLogQueue: number;
}
