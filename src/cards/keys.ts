/**
 * The card data keyring of a deployment (see ./data.ts): the card data key family
 * (src/kernel/secrets/sealing.ts: CARD_DATA_KEY as version CARD_DATA_KEY_VERSION, older
 * versions from CARD_DATA_PREVIOUS_KEYS) derived for card data, and
 * CARD_FINGERPRINT_KEY. In the sandbox an unset CARD_FINGERPRINT_KEY is generated
 * once and kept in `settings`, like the data key, so every instance and restart reads
 * the same cards; src/config.ts refuses to start without it when SANDBOX=false.
 */
import type { Knex } from 'knex';
import type { Config } from '../kernel/serviceConfig.js';
import { cardKeyring, type CardKeyring } from './data.js';
import { familySecrets, keyFamilies } from '../kernel/secrets/sealing.js';
import { keptSecret } from '../kernel/secrets/settings.js';

/**
 * The keyring for `config`, its generated secrets read from (or first written to) `db`.
 * Derived once, at start (src/server.ts), and handed to the handlers in Services.keys.
 */
export async function cardKeys(db: Knex, config: Config): Promise<CardKeyring> {
  return cardKeyring({
    current: config.cardDataKeyVersion,
    secrets: await familySecrets(db, keyFamilies(config).cardData),
    fingerprintSecret: await keptSecret(db, 'card_fingerprint_key', config.cardFingerprintKey),
  });
}
