/**
 * Service configuration, read once from the environment.
 *
 * PORT (default 3000), DATABASE_URL (any PostgreSQL; when unset an embedded
 * PostgreSQL is started), DATA_DIR (embedded PostgreSQL data, default `.data`),
 * JWT_SECRET (default: generated once and kept in the database),
 * TOKEN_TTL_SECONDS (default 3600), RATE_LIMIT_PER_MINUTE (default 600 per client),
 * SANDBOX (default true: test helpers on, sandbox clients seeded),
 * STATEMENT_MAX_ENTRIES (default and most 10000: longer periods are 422 STATEMENT_TOO_LARGE),
 * CORS_ORIGINS (default `*`; or a comma-separated list of allowed origins),
 * LOG_LEVEL (default `info`) and LOG_FILE (default: stdout), see src/log.ts,
 * OTP_HASH_KEY (key of the OTPs' keyed hash; default: generated once and kept in
 * the database), PROVIDER_TIMEOUT_MS (default 5000: a provider call that takes
 * longer is answered 503 SERVICE_UNAVAILABLE), IDENTITY_DATA_KEY (seals national ids;
 * default generated once and kept), IDENTITY_PROVIDER_CALLBACK_SECRET and
 * SCREENING_PROVIDER_CALLBACK_SECRET (HMAC keys of the providers' signed callbacks;
 * default generated once and kept, which suits the sandbox providers).
 * Card data (src/domain/cardData.ts): CARD_DATA_KEY seals PANs, CVVs and PINs
 * (AES-256-GCM), as key version CARD_DATA_KEY_VERSION (default 1);
 * CARD_DATA_PREVIOUS_KEYS (`<version>:<secret>,…`) keeps older versions readable
 * after a rotation; CARD_FINGERPRINT_KEY keys the PAN fingerprints (never rotate
 * it). In the sandbox an unset CARD_DATA_KEY or CARD_FINGERPRINT_KEY is generated
 * once and kept in the database; with SANDBOX=false both are required.
 * The upper bounds keep every response inside the documented schemas
 * (`expires_in` ≤ 86400, a statement's `entries` ≤ 10000).
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
  corsOrigins: '*' | string[];
  logLevel: string;
  logFile?: string;
  otpHashKey?: string;
  providerTimeoutMs: number;
  identityDataKey?: string;
  identityProviderCallbackSecret?: string;
  screeningProviderCallbackSecret?: string;
  cardDataKey?: string;
  cardDataKeyVersion: number;
  /** Older card data keys by version, still readable. */
  cardDataPreviousKeys: Record<number, string>;
  cardFingerprintKey?: string;
}

function intFrom(value: string | undefined, fallback: number, name: string, max = Number.MAX_SAFE_INTEGER, min = 0): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
  return n;
}

function originsFrom(value: string | undefined): '*' | string[] {
  if (!value || value.trim() === '*') return '*';
  const origins = value.split(',').map((o) => o.trim()).filter(Boolean);
  for (const o of origins) if (!/^https?:\/\/[^\s/]+$/.test(o)) throw new Error(`CORS_ORIGINS: "${o}" is not an origin like https://docs.example.com`);
  return origins;
}

/** `<version>:<secret>,…` as a map; throws on a malformed entry. */
function keysFrom(value: string | undefined): Record<number, string> {
  const keys: Record<number, string> = {};
  for (const entry of (value ?? '').split(',').filter(Boolean)) {
    const match = /^\s*([0-9]+):(.+)$/.exec(entry);
    if (!match || Number(match[1]) < 1) throw new Error('CARD_DATA_PREVIOUS_KEYS must be a comma-separated list of <version>:<secret>, versions from 1');
    keys[Number(match[1])] = match[2];
  }
  return keys;
}

/** Reads the configuration from `env`; throws on a malformed value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const config: Config = {
    port: intFrom(env.PORT, 3000, 'PORT'),
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR || '.data',
    jwtSecret: env.JWT_SECRET || undefined,
    tokenTtlSeconds: intFrom(env.TOKEN_TTL_SECONDS, 3600, 'TOKEN_TTL_SECONDS', 86_400, 1),
    rateLimitPerMinute: intFrom(env.RATE_LIMIT_PER_MINUTE, 600, 'RATE_LIMIT_PER_MINUTE'),
    sandbox: env.SANDBOX !== 'false',
    statementMaxEntries: intFrom(env.STATEMENT_MAX_ENTRIES, 10_000, 'STATEMENT_MAX_ENTRIES', 10_000),
    corsOrigins: originsFrom(env.CORS_ORIGINS),
    logLevel: env.LOG_LEVEL || 'info',
    logFile: env.LOG_FILE || undefined,
    otpHashKey: env.OTP_HASH_KEY || undefined,
    providerTimeoutMs: intFrom(env.PROVIDER_TIMEOUT_MS, 5000, 'PROVIDER_TIMEOUT_MS', 60_000, 1),
    identityDataKey: env.IDENTITY_DATA_KEY || undefined,
    identityProviderCallbackSecret: env.IDENTITY_PROVIDER_CALLBACK_SECRET || undefined,
    screeningProviderCallbackSecret: env.SCREENING_PROVIDER_CALLBACK_SECRET || undefined,
    cardDataKey: env.CARD_DATA_KEY || undefined,
    cardDataKeyVersion: intFrom(env.CARD_DATA_KEY_VERSION, 1, 'CARD_DATA_KEY_VERSION', 1_000_000, 1),
    cardDataPreviousKeys: keysFrom(env.CARD_DATA_PREVIOUS_KEYS),
    cardFingerprintKey: env.CARD_FINGERPRINT_KEY || undefined,
  };
  if (!config.sandbox && (!config.cardDataKey || !config.cardFingerprintKey)) {
    throw new Error('CARD_DATA_KEY and CARD_FINGERPRINT_KEY are required when SANDBOX=false');
  }
  return config;
}
