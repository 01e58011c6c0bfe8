/**
 * Service configuration, read once from the environment.
 *
 * PORT (default 3000), HOST (the address the HTTP server binds, default `0.0.0.0`:
 * every interface), DATABASE_URL (any PostgreSQL; when unset an embedded
 * PostgreSQL is started), DATA_DIR (embedded PostgreSQL data, default `.data`),
 * JWT_SECRET (default: generated once and kept in the database),
 * TOKEN_TTL_SECONDS (default 3600), RATE_LIMIT_PER_MINUTE (default 600 per client),
 * RATE_LIMIT_PER_ADDRESS_PER_MINUTE (default 600 per IP address for requests without a
 * valid token: no token or a bad one, the token request, provider callbacks),
 * SANDBOX (default true: test helpers on, sandbox clients seeded),
 * DB_POOL_SIZE (default 40: most database connections the service holds),
 * DB_PREPARED_STATEMENTS (default true; `false` sends every statement unnamed, for a
 * pooler in transaction mode such as pgbouncer before 1.21, see src/db/knex.ts),
 * DB_FAILOVER_WAIT_MS (default 5000, at most 60000: how long a read or a write with an
 * Idempotency-Key waits, sent again on fresh connections, for a database that cannot be
 * reached, such as during a failover to a standby, before it is answered 503; src/db/failover.ts),
 * CORS_ORIGINS (default `*`; or a comma-separated list of allowed origins),
 * LOG_LEVEL (default `info`) and LOG_FILE (default: stdout), see src/log.ts,
 * OTP_HASH_KEY (key of the OTPs' keyed hash; default: generated once and kept in
 * the database), PROVIDER_TIMEOUT_MS (default 5000: a provider call that takes
 * longer is answered 503 SERVICE_UNAVAILABLE), IDENTITY_PROVIDER_CALLBACK_SECRET and
 * SCREENING_PROVIDER_CALLBACK_SECRET (HMAC keys of the providers' signed callbacks;
 * default generated once and kept, which suits the sandbox providers).
 * Sealing keys (src/kernel/secrets/sealing.ts), a family per purpose, each as
 * `<FAMILY>_KEY` of version `<FAMILY>_KEY_VERSION` (default 1) with older versions in
 * `<FAMILY>_PREVIOUS_KEYS` (`<version>:<secret>,…`): CARD_DATA_* seals PANs, CVVs and PINs
 * (src/cards/data.ts), WEBHOOK_SECRET_* the webhook endpoints' secrets
 * (src/webhooks/secrets.ts), NATIONAL_ID_* the national ids (src/customers/identityData.ts;
 * NATIONAL_ID_INDEX_KEY keys their lookup hash, never rotated; IDENTITY_DATA_KEY is the old
 * name of both), IDEMPOTENCY_REPLAY_* the kept answers that hold a secret shown once
 * (src/kernel/idempotency/idempotency.ts), TOTP_SECRET_* the portal users' TOTP secrets
 * (src/businesses/users.ts). CARD_FINGERPRINT_KEY keys the PAN fingerprints
 * (never rotate it). In the sandbox an unset key is generated once and kept in the
 * database; with SANDBOX=false CARD_DATA_KEY, CARD_FINGERPRINT_KEY, WEBHOOK_SECRET_KEY,
 * IDEMPOTENCY_REPLAY_KEY and TOTP_SECRET_KEY are required.
 * Portal users (src/businesses/sessions.ts): PORTAL_SESSION_IDLE_MINUTES (default 30) and
 * PORTAL_SESSION_LIFETIME_MINUTES (default 720, 12 hours) end a session;
 * PORTAL_REAUTHENTICATION_MINUTES (default 10) and PORTAL_REAUTHENTICATION_AMOUNT (default
 * 10000.00, a decimal string) bound the sensitive steps (src/http/reauthentication.ts); and
 * SIGN_IN_RATE_LIMIT_PER_ADDRESS_PER_MINUTE (default 20) refuses sign-ins from one address
 * before any password is checked (src/http/rateLimit.ts).
 * Webhook delivery (src/webhooks/): WEBHOOK_TIMEOUT_MS (default 15000, the time-out of
 * one attempt), WEBHOOK_RETRY_SCALE (default 1: multiplies every delay of the retry
 * schedule in src/webhooks/schedule.ts, e.g. 0.001 turns 5 minutes into 300 ms; tests
 * only), WEBHOOK_CONCURRENCY (default 4: 16 delivery jobs of up to 16 deliveries each, run at once per instance, per unit),
 * WEBHOOK_DISABLE_FAILING_AFTER_HOURS (default 120: an endpoint whose every attempt failed
 * for 5 days is disabled, src/webhooks/health.ts), and the
 * job queue's JOB_POLLING_INTERVAL_MS (default 1000, at least 500: how soon an idle
 * worker sees a job another instance enqueued) and JOB_MAINTENANCE_INTERVAL_SECONDS
 * (default 5: how often jobs of a crashed instance are looked for, and jobs committed in
 * the job outbox but not handed over, src/jobs/outbox.ts; with the payout steps'
 * 10-second expiry a payout caught by a crash goes on within about 25 s).
 * Background work (src/kernel/scheduling/background.ts): BACKGROUND_CONCURRENCY (default 1, the
 * transactions for many payouts or deliveries at once, such as a bulk payout's creation
 * or a batch of payout steps, that one instance runs at a time; raise it when the
 * database has cores to spare for them) and BACKGROUND_REST_RATIO (default 1, from 0 to
 * 10: after each such transaction that an API request overlapped, the lane rests that
 * many times as long as it ran, 2.5 times that after the webhooks' work, at most 5 s, so
 * that it leaves the API its share of the database; without requests it does not rest).
 * Payouts: PAYOUT_PROCESSING_MS (default 3000: how long a payout of the sandbox rail stays
 * PROCESSING before its automatic outcome; src/payouts/sandboxRail.ts); PAYOUT_RAIL_URL (the
 * bank connector's submission endpoint: with it payouts go to the real rail,
 * src/payouts/httpRail.ts, also in the sandbox) and PAYOUT_RAIL_CALLBACK_SECRET (the HMAC
 * secret shared with the connector: it signs the submissions and the connector's callbacks;
 * required with PAYOUT_RAIL_URL). With SANDBOX=false both are required: there the service
 * refuses to start without a rail.
 * Audit log (src/audit/): AUDIT_RETENTION_DAYS (default 400, from 30: how long an audit
 * event is kept before the hourly purge deletes it; the table refuses shorter).
 * API request log (src/audit/requestLog.ts): API_REQUEST_LOG_DAYS (default 7, 1 to 90),
 * API_REQUEST_LOG_MAX_ROWS (default 100000 per business, from 100) and API_REQUEST_LOG_QUEUE
 * (default 10000 requests queued per instance, 0 records none; past it they are dropped).
 * The upper bounds keep every response inside the documented schemas
 * (`expires_in` ≤ 86400, a statement's `entries` ≤ 10000).
 */
import type { Config } from './kernel/serviceConfig.js';
import { DEFAULT_BACKGROUND_CONCURRENCY, DEFAULT_BACKGROUND_REST_RATIO, isRestRatio, MAX_BACKGROUND_CONCURRENCY, MAX_BACKGROUND_REST_RATIO } from './kernel/scheduling/background.js';
import { DEFAULT_DB_POOL_SIZE } from './db/pool.js';

/** The configuration's shape lives in the kernel (every layer reads it); this module reads it from the environment. */
export type { Config };

function intFrom(value: string | undefined, fallback: number, name: string, max = Number.MAX_SAFE_INTEGER, min = 0): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
  return n;
}

/** A decimal amount of at most two decimals, kept as its string (money is never a JS number). */
function amountFrom(value: string | undefined, fallback: string, name: string): string {
  if (value === undefined || value === '') return fallback;
  if (!/^\d{1,15}(\.\d{1,2})?$/.test(value)) throw new Error(`${name} must be a decimal amount with at most two decimals, such as 10000.00, got "${value}"`);
  return value;
}

function booleanFrom(value: string | undefined, fallback: boolean, name: string): boolean {
  if (value === undefined || value === '') return fallback;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new Error(`${name} must be true or false, got "${value}"`);
}

function scaleFrom(value: string | undefined): number {
  if (value === undefined || value === '') return 1;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 1) throw new Error(`WEBHOOK_RETRY_SCALE must be a number above 0 and at most 1, got "${value}"`);
  return n;
}

/** BACKGROUND_REST_RATIO: a number from 0 to MAX_BACKGROUND_REST_RATIO (default DEFAULT_BACKGROUND_REST_RATIO). */
function ratioFrom(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_BACKGROUND_REST_RATIO;
  const n = Number(value);
  if (!isRestRatio(n)) throw new Error(`BACKGROUND_REST_RATIO must be a number from 0 to ${MAX_BACKGROUND_REST_RATIO}, got "${value}"`);
  return n;
}

function originsFrom(value: string | undefined): '*' | string[] {
  if (!value || value.trim() === '*') return '*';
  const origins = value.split(',').map((o) => o.trim()).filter(Boolean);
  for (const o of origins) if (!/^https?:\/\/[^\s/]+$/.test(o)) throw new Error(`CORS_ORIGINS: "${o}" is not an origin like https://docs.example.com`);
  return origins;
}

/** `<version>:<secret>,…` (the variable `name`) as a map; throws on a malformed entry. */
function keysFrom(value: string | undefined, name: string): Record<number, string> {
  const keys: Record<number, string> = {};
  for (const entry of (value ?? '').split(',').filter(Boolean)) {
    const match = /^\s*([0-9]+):(.+)$/.exec(entry);
    if (!match || Number(match[1]) < 1) throw new Error(`${name} must be a comma-separated list of <version>:<secret>, versions from 1`);
    keys[Number(match[1])] = match[2];
  }
  return keys;
}

/** Reads the configuration from `env`; throws on a malformed value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const config: Config = {
    port: intFrom(env.PORT, 3000, 'PORT'),
    host: env.HOST || '0.0.0.0',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR || '.data',
    jwtSecret: env.JWT_SECRET || undefined,
    tokenTtlSeconds: intFrom(env.TOKEN_TTL_SECONDS, 3600, 'TOKEN_TTL_SECONDS', 86_400, 1),
    rateLimitPerMinute: intFrom(env.RATE_LIMIT_PER_MINUTE, 600, 'RATE_LIMIT_PER_MINUTE'),
    rateLimitPerAddressPerMinute: intFrom(env.RATE_LIMIT_PER_ADDRESS_PER_MINUTE, 600, 'RATE_LIMIT_PER_ADDRESS_PER_MINUTE'),
    sandbox: env.SANDBOX !== 'false',
    dbPoolSize: env.DB_POOL_SIZE ? intFrom(env.DB_POOL_SIZE, 0, 'DB_POOL_SIZE', 10_000, 1) : DEFAULT_DB_POOL_SIZE,
    dbPreparedStatements: booleanFrom(env.DB_PREPARED_STATEMENTS, true, 'DB_PREPARED_STATEMENTS'),
    dbFailoverWaitMs: intFrom(env.DB_FAILOVER_WAIT_MS, 5000, 'DB_FAILOVER_WAIT_MS', 60_000, 0),
    corsOrigins: originsFrom(env.CORS_ORIGINS),
    logLevel: env.LOG_LEVEL || 'info',
    logFile: env.LOG_FILE || undefined,
    otpHashKey: env.OTP_HASH_KEY || undefined,
    providerTimeoutMs: intFrom(env.PROVIDER_TIMEOUT_MS, 5000, 'PROVIDER_TIMEOUT_MS', 60_000, 1),
    identityDataKey: env.IDENTITY_DATA_KEY || undefined,
    nationalIdKey: env.NATIONAL_ID_KEY || undefined,
    nationalIdKeyVersion: intFrom(env.NATIONAL_ID_KEY_VERSION, 1, 'NATIONAL_ID_KEY_VERSION', 1_000_000, 1),
    nationalIdPreviousKeys: keysFrom(env.NATIONAL_ID_PREVIOUS_KEYS, 'NATIONAL_ID_PREVIOUS_KEYS'),
    nationalIdIndexKey: env.NATIONAL_ID_INDEX_KEY || undefined,
    identityProviderCallbackSecret: env.IDENTITY_PROVIDER_CALLBACK_SECRET || undefined,
    screeningProviderCallbackSecret: env.SCREENING_PROVIDER_CALLBACK_SECRET || undefined,
    cardDataKey: env.CARD_DATA_KEY || undefined,
    cardDataKeyVersion: intFrom(env.CARD_DATA_KEY_VERSION, 1, 'CARD_DATA_KEY_VERSION', 1_000_000, 1),
    cardDataPreviousKeys: keysFrom(env.CARD_DATA_PREVIOUS_KEYS, 'CARD_DATA_PREVIOUS_KEYS'),
    cardFingerprintKey: env.CARD_FINGERPRINT_KEY || undefined,
    webhookSecretKey: env.WEBHOOK_SECRET_KEY || undefined,
    webhookSecretKeyVersion: intFrom(env.WEBHOOK_SECRET_KEY_VERSION, 1, 'WEBHOOK_SECRET_KEY_VERSION', 1_000_000, 1),
    webhookSecretPreviousKeys: keysFrom(env.WEBHOOK_SECRET_PREVIOUS_KEYS, 'WEBHOOK_SECRET_PREVIOUS_KEYS'),
    idempotencyReplayKey: env.IDEMPOTENCY_REPLAY_KEY || undefined,
    idempotencyReplayKeyVersion: intFrom(env.IDEMPOTENCY_REPLAY_KEY_VERSION, 1, 'IDEMPOTENCY_REPLAY_KEY_VERSION', 1_000_000, 1),
    idempotencyReplayPreviousKeys: keysFrom(env.IDEMPOTENCY_REPLAY_PREVIOUS_KEYS, 'IDEMPOTENCY_REPLAY_PREVIOUS_KEYS'),
    totpSecretKey: env.TOTP_SECRET_KEY || undefined,
    totpSecretKeyVersion: intFrom(env.TOTP_SECRET_KEY_VERSION, 1, 'TOTP_SECRET_KEY_VERSION', 1_000_000, 1),
    totpSecretPreviousKeys: keysFrom(env.TOTP_SECRET_PREVIOUS_KEYS, 'TOTP_SECRET_PREVIOUS_KEYS'),
    portalSessionIdleMinutes: intFrom(env.PORTAL_SESSION_IDLE_MINUTES, 30, 'PORTAL_SESSION_IDLE_MINUTES', 1440, 1),
    portalSessionLifetimeMinutes: intFrom(env.PORTAL_SESSION_LIFETIME_MINUTES, 720, 'PORTAL_SESSION_LIFETIME_MINUTES', 10_080, 1),
    portalReauthenticationMinutes: intFrom(env.PORTAL_REAUTHENTICATION_MINUTES, 10, 'PORTAL_REAUTHENTICATION_MINUTES', 720, 1),
    portalReauthenticationAmount: amountFrom(env.PORTAL_REAUTHENTICATION_AMOUNT, '10000.00', 'PORTAL_REAUTHENTICATION_AMOUNT'),
    signInRateLimitPerAddressPerMinute: intFrom(env.SIGN_IN_RATE_LIMIT_PER_ADDRESS_PER_MINUTE, 20, 'SIGN_IN_RATE_LIMIT_PER_ADDRESS_PER_MINUTE'),
    webhookTimeoutMs: intFrom(env.WEBHOOK_TIMEOUT_MS, 15_000, 'WEBHOOK_TIMEOUT_MS', 60_000, 100),
    webhookRetryScale: scaleFrom(env.WEBHOOK_RETRY_SCALE),
    webhookConcurrency: intFrom(env.WEBHOOK_CONCURRENCY, 4, 'WEBHOOK_CONCURRENCY', 64, 1),
    webhookDisableFailingAfterHours: intFrom(env.WEBHOOK_DISABLE_FAILING_AFTER_HOURS, 120, 'WEBHOOK_DISABLE_FAILING_AFTER_HOURS', 8760, 1),
    backgroundConcurrency: intFrom(env.BACKGROUND_CONCURRENCY, DEFAULT_BACKGROUND_CONCURRENCY, 'BACKGROUND_CONCURRENCY', MAX_BACKGROUND_CONCURRENCY, 1),
    backgroundRestRatio: ratioFrom(env.BACKGROUND_REST_RATIO),
    jobPollingIntervalMs: intFrom(env.JOB_POLLING_INTERVAL_MS, 1000, 'JOB_POLLING_INTERVAL_MS', 60_000, 500),
    jobMaintenanceIntervalSeconds: intFrom(env.JOB_MAINTENANCE_INTERVAL_SECONDS, 5, 'JOB_MAINTENANCE_INTERVAL_SECONDS', 3600, 1),
    payoutProcessingMs: intFrom(env.PAYOUT_PROCESSING_MS, 3000, 'PAYOUT_PROCESSING_MS', 3_600_000, 0),
    payoutRailUrl: env.PAYOUT_RAIL_URL || undefined,
    payoutRailCallbackSecret: env.PAYOUT_RAIL_CALLBACK_SECRET || undefined,
    auditRetentionDays: intFrom(env.AUDIT_RETENTION_DAYS, 400, 'AUDIT_RETENTION_DAYS', 36_500, 30),
    apiRequestLogDays: intFrom(env.API_REQUEST_LOG_DAYS, 7, 'API_REQUEST_LOG_DAYS', 90, 1),
    apiRequestLogMaxRows: intFrom(env.API_REQUEST_LOG_MAX_ROWS, 100_000, 'API_REQUEST_LOG_MAX_ROWS', 100_000_000, 100),
    apiRequestLogQueue: intFrom(env.API_REQUEST_LOG_QUEUE, 10_000, 'API_REQUEST_LOG_QUEUE', 1_000_000, 0),
  };
  checkConfig(config);
  return config;
}

/**
 * Throws when `config` cannot run: SANDBOX=false without its data keys or without a
 * payout rail (every payout would wait forever, or complete with no bank step), a
 * rail without its secret, or a rail URL that is not http(s). Called by `loadConfig`
 * and again by `startService` (for configurations built in code).
 */
export function checkConfig(config: Config): void {
  const missing = Object.entries({
    CARD_DATA_KEY: config.cardDataKey,
    CARD_FINGERPRINT_KEY: config.cardFingerprintKey,
    WEBHOOK_SECRET_KEY: config.webhookSecretKey,
    IDEMPOTENCY_REPLAY_KEY: config.idempotencyReplayKey,
    TOTP_SECRET_KEY: config.totpSecretKey,
  }).filter(([, key]) => !key);
  if (!config.sandbox && missing.length) {
    throw new Error(`${missing.map(([name]) => name).join(', ')} required when SANDBOX=false (CARD_DATA_KEY, CARD_FINGERPRINT_KEY, WEBHOOK_SECRET_KEY, IDEMPOTENCY_REPLAY_KEY and TOTP_SECRET_KEY)`);
  }
  if (!config.sandbox && !config.payoutRailUrl) {
    throw new Error('PAYOUT_RAIL_URL and PAYOUT_RAIL_CALLBACK_SECRET are required when SANDBOX=false: payouts are settled by the payout rail');
  }
  if (config.payoutRailUrl) {
    if (!config.payoutRailCallbackSecret) throw new Error('PAYOUT_RAIL_CALLBACK_SECRET is required with PAYOUT_RAIL_URL');
    if (!/^https?:\/\/[^\s]+$/.test(config.payoutRailUrl) || !URL.canParse(config.payoutRailUrl)) {
      throw new Error(`PAYOUT_RAIL_URL must be an http(s) URL, got "${config.payoutRailUrl}"`);
    }
  }
}
