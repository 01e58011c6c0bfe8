/**
 * The data keys of a deployment (see ./data.ts): CARD_DATA_KEY as version
 * CARD_DATA_KEY_VERSION, older versions from CARD_DATA_PREVIOUS_KEYS, and
 * CARD_FINGERPRINT_KEY. They seal card data and, under keys derived for that
 * purpose, webhook endpoint secrets. In the sandbox an unset CARD_DATA_KEY or
 * CARD_FINGERPRINT_KEY is generated once and kept in `settings` (like the JWT
 * key), so every instance and restart reads the same cards; src/config.ts
 * refuses to start without both when SANDBOX=false.
 */
import type { Knex } from 'knex';
import type { Config } from '../config.js';
import { cardKeyring, sealingKeys, type CardKeyring, type SealingKeys } from './data.js';
import { keptSecret } from '../kernel/settings.js';

/** The data key secrets by version: the current one (from `config`, or generated and kept in `db`) and the previous ones. */
async function dataKeySecrets(db: Knex, config: Config): Promise<Map<number, Buffer>> {
  const secrets = new Map<number, Buffer>();
  for (const [version, secret] of Object.entries(config.cardDataPreviousKeys)) secrets.set(Number(version), Buffer.from(secret, 'utf8'));
  secrets.set(config.cardDataKeyVersion, await keptSecret(db, `card_data_key_v${config.cardDataKeyVersion}`, config.cardDataKey));
  return secrets;
}

/** The keyring for `config`, its generated secrets read from (or first written to) `db`. */
export async function cardKeys(db: Knex, config: Config): Promise<CardKeyring> {
  return cardKeyring({
    current: config.cardDataKeyVersion,
    secrets: await dataKeySecrets(db, config),
    fingerprintSecret: await keptSecret(db, 'card_fingerprint_key', config.cardFingerprintKey),
  });
}

/** The keys that seal webhook endpoint secrets (src/webhooks/secrets.ts): the data keys, derived for that purpose. */
export async function webhookSecretKeys(db: Knex, config: Config): Promise<SealingKeys> {
  return sealingKeys(config.cardDataKeyVersion, await dataKeySecrets(db, config), 'webhook-secret-seal');
}
