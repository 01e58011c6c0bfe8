/**
 * The two values every layer passes around: who is calling (`Principal`, from the
 * bearer token) and the long-lived dependencies of a running instance (`Services`).
 * They live below the HTTP layer so that capability code can take them without
 * importing `src/http`.
 */
import type { Knex } from 'knex';
import type { Permission } from './permissions.js';
import type { Config } from './serviceConfig.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Logger } from '../log.js';
import type { Metrics } from './metrics/metrics.js';
import type { SealingKeys } from './secrets/sealing.js';

/** Who is calling, from the bearer token or a portal user's session cookie. */
export interface Principal {
  kind: 'PLATFORM' | 'BUSINESS';
  /** The API client's id; for a portal user acting through a session, the user's id (as `userId`). */
  clientId: string;
  /**
   * A portal user acting through a session (src/businesses/sessions.ts): then `kind` is
   * BUSINESS, `clientId` is this same user id, and `permissions` are the user's role's
   * (ROLES, src/kernel/permissions.ts), read per request.
   */
  userId?: string;
  /**
   * For a portal user: whether the session's last TOTP code (its sign-in or a
   * re-authentication) is within PORTAL_REAUTHENTICATION_MINUTES, as a step marked
   * `x-reauthentication` needs (src/http/admission.ts). Absent for an API key.
   */
  recentlyAuthenticated?: boolean;
  /** The business a BUSINESS client acts for; null for PLATFORM clients. */
  businessId: string | null;
  /**
   * What its API key may do (src/kernel/permissions.ts), as read by the HTTP layer at most a
   * few seconds ago; absent before that lookup, and on a PLATFORM client, which may do all.
   */
  permissions?: readonly Permission[];
}

/** The name of the portal session's cookie (src/businesses/sessions.ts), which the HTTP layer reads. */
export const SESSION_COOKIE = 'session';

/** What the HTTP layer learns from a portal session cookie (src/businesses/sessions.ts): the principal and the SHA-256 (hex) of the session's CSRF token. */
export interface SessionCredential {
  principal: Principal;
  csrfTokenHash: string;
}

/**
 * The keys of a running instance, each derived once at start by its capability's
 * `…Keys(db, config)` (src/server.ts); a handler takes them from here and derives none.
 */
export interface ServiceKeys {
  /** Card data (src/cards/keys.ts cardKeys): sealing keys and the PAN fingerprint key. */
  cardData: SealingKeys & { readonly fingerprint: Buffer };
  /** Webhook endpoint secrets (src/webhooks/secrets.ts webhookSecretKeys). */
  webhookSecrets: SealingKeys;
  /** National ids (src/customers/identityData.ts nationalIdKeys): sealing keys and the lookup hash's key. */
  nationalIds: { seal: SealingKeys; index: Buffer };
  /** Kept idempotent answers that hold a secret (src/kernel/idempotency/idempotency.ts replayKeys). */
  replays: SealingKeys;
  /** The one-time codes' keyed hash (src/kernel/otp/flowEnv.ts otpKeys). */
  otp: Buffer;
  /** Portal users' TOTP secrets (src/businesses/users.ts totpSecretKeys). */
  totpSecrets: SealingKeys;
}

/** Long-lived dependencies of the handlers. */
export interface Services {
  db: Knex;
  config: Config;
  /** HS256 key for access tokens. */
  jwtKey: Uint8Array;
  /** Sealing and hashing keys, derived once at start. */
  keys: ServiceKeys;
  log: Logger;
  metrics: Metrics;
  /** The durable job queue (pg-boss), shared by webhook delivery and later payouts. */
  jobs: JobQueue;
}

