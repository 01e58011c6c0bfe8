/**
 * Webhook endpoint secrets at rest. The secret an integrator registers (E3's
 * `secret`, a Standard Webhooks `whsec_…` key) signs every delivery, so it must be
 * readable; it is kept sealed (src/kernel/secrets/sealing.ts): AES-256-GCM under the
 * webhook secret key family (WEBHOOK_SECRET_KEY, `webhookSecretKeys`), with
 * `webhook-endpoint:<id>:secret` as additional authenticated data (a sealed secret cannot
 * be moved to another endpoint), in `webhook_endpoints.secret_sealed` with its key
 * version in `secret_key_version`.
 *
 * Rotation: a secret opens with the key of its stored version as long as that version
 * is configured (current or in WEBHOOK_SECRET_PREVIOUS_KEYS), so deliveries keep being
 * signed after the current key changes. Secrets sealed before webhook secrets had a
 * family of their own were sealed under the card data keys (CARD_DATA_KEY and
 * CARD_DATA_PREVIOUS_KEYS, derived for this purpose): the family's predecessor, with
 * which they still open. At every start-up `resealEndpointSecrets` re-seals those and
 * the secrets of an older key version under the current key, so an old key can be
 * retired once every instance has started with the new one. No secret is stored in
 * clear (migration 033 dropped the column that held them before sealing).
 *
 * Rotation of an endpoint's own secret (`rotateWebhookEndpointSecret`) is another
 * matter: the service draws the new secret, and the replaced one is kept sealed beside it
 * (`previous_secret_sealed`, its own additional data) until `previous_secret_expires_at`,
 * signing every delivery alongside the new one (./signing.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Config } from '../kernel/serviceConfig.js';
import { resealColumn } from '../kernel/secrets/reseal.js';
import { familyKeys, keyFamilies, openValue, sealValue, type SealingKeys } from '../kernel/secrets/sealing.js';

/** What the webhook secrets' AES keys are derived for (under their own family's secrets, and under the card data secrets of their predecessor). */
const PURPOSE = 'webhook-secret-seal';

/**
 * The keys that seal webhook endpoint secrets: the webhook secret family, with the card
 * data family derived for the same purpose as its predecessor (see the module comment); a
 * generated current secret is read from (or first written to) `db`. Derived once, at
 * start (src/server.ts), and handed to the handlers in Services.keys. Throws like
 * `sealingKeys` on a malformed configuration.
 */
export async function webhookSecretKeys(db: Knex, config: Config): Promise<SealingKeys> {
  const families = keyFamilies(config);
  return familyKeys(db, families.webhookSecret, PURPOSE, await familyKeys(db, families.cardData, PURPOSE));
}

/** The columns of `webhook_endpoints` that hold its sealed secret. */
export interface StoredSecret {
  id: string;
  secret_sealed: string;
  secret_key_version: number;
}

const context = (endpointId: string): string => `webhook-endpoint:${endpointId}:secret`;

/** The sealed columns for endpoint `endpointId`'s `secret`, under the current key. */
export function sealEndpointSecret(keys: SealingKeys, endpointId: string, secret: string): { secret_sealed: string; secret_key_version: number } {
  const { sealed, keyVersion } = sealValue(keys, context(endpointId), secret);
  return { secret_sealed: sealed, secret_key_version: keyVersion };
}

/**
 * The endpoint's secret in clear, for signing. Throws when it is sealed under a key
 * version that is not configured, or does not open (altered, or another endpoint's).
 */
export function endpointSecret(keys: SealingKeys, row: StoredSecret): string {
  return openValue(keys, context(row.id), { sealed: row.secret_sealed, keyVersion: row.secret_key_version });
}

/**
 * Re-seals every secret of a key version older than the current one, or sealed under the
 * predecessor's keys, under the current key (see the module comment; src/kernel/secrets/
 * reseal.ts). A secret whose key is not configured is left as it is and counted in
 * `unreadable` (its deliveries fail until the key is configured again).
 */
export function resealEndpointSecrets(db: Knex, keys: SealingKeys): Promise<{ resealed: number; unreadable: number }> {
  return resealColumn<StoredSecret & { business_id: string }>(db, {
    table: 'webhook_endpoints',
    column: 'secret_sealed',
    reads: ['secret_sealed', 'secret_key_version'],
    stale: (rows) => rows.where('secret_key_version', '<', keys.current).orWhereNot('secret_sealed', 'like', `${keys.family}.%`),
    open: (row) => endpointSecret(keys, row),
    seal: (row, clear) => sealEndpointSecret(keys, row.id, clear),
  });
}

/**
 * A new endpoint secret, Standard Webhooks format: `whsec_` + base64 of 32 random bytes
 * (the format the registration accepts: 24 to 63 bytes).
 */
export function newEndpointSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The columns of `webhook_endpoints` that hold the previous secret of a rotation. */
export interface StoredPreviousSecret {
  id: string;
  previous_secret_sealed: string | null;
  previous_secret_key_version: number | null;
  previous_secret_expires_at: Date | null;
}

/** The sealed secret's additional data: another purpose than the current secret's, so neither can stand for the other. */
const previousContext = (endpointId: string): string => `webhook-endpoint:${endpointId}:previous-secret`;

/** The sealed columns for endpoint `endpointId`'s previous `secret`, signing until `expiresAt`. */
export function sealPreviousSecret(
  keys: SealingKeys,
  endpointId: string,
  secret: string,
  expiresAt: Date,
): { previous_secret_sealed: string; previous_secret_key_version: number; previous_secret_expires_at: Date } {
  const { sealed, keyVersion } = sealValue(keys, previousContext(endpointId), secret);
  return { previous_secret_sealed: sealed, previous_secret_key_version: keyVersion, previous_secret_expires_at: expiresAt };
}

/**
 * The previous secret in clear while it still signs at `now` (a rotation's overlap), else
 * null. Throws like endpointSecret when it does not open. It is not re-sealed by
 * `resealEndpointSecrets`: it signs for at most 24 hours, and opens meanwhile as long as its
 * key version is configured.
 */
export function previousEndpointSecret(keys: SealingKeys, row: StoredPreviousSecret, now: Date): string | null {
  if (row.previous_secret_sealed === null || row.previous_secret_key_version === null || row.previous_secret_expires_at === null) return null;
  if (row.previous_secret_expires_at.getTime() <= now.getTime()) return null;
  return openValue(keys, previousContext(row.id), { sealed: row.previous_secret_sealed, keyVersion: row.previous_secret_key_version });
}
