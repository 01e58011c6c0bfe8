/**
 * Sealing values at rest, the one implementation: AES-256-GCM (random 96-bit IV, 128-bit
 * tag) under versioned keys of a key family, with a context (what the value belongs to,
 * e.g. `card:<id>:pan`, `webhook-endpoint:<id>:secret`) as additional authenticated data,
 * so a sealed value cannot be moved to another owner or field.
 *
 * Key families: one per purpose, each named for what it seals and configured alike
 * (docs/configuration.md): `<FAMILY>_KEY` is the secret of version `<FAMILY>_KEY_VERSION`,
 * the one new values are sealed under, `<FAMILY>_PREVIOUS_KEYS` (`<version>:<secret>,…`)
 * keep older versions readable; in the sandbox an unset `<FAMILY>_KEY` is generated once
 * and kept in `settings` (`<family>_key_v<version>`), so every instance and restart reads
 * the same values. The families: card data (src/cards/keys.ts), webhook endpoint secrets
 * (src/webhooks/secrets.ts), national ids (src/customers/identityData.ts), kept idempotent
 * answers that hold a secret (src/kernel/idempotency/idempotency.ts), the portal users'
 * TOTP secrets (src/businesses/users.ts). Each AES key is
 * HMAC-SHA256(secret, purpose), so no two purposes share a key even under one secret.
 *
 * A sealed value names its family and carries its key version: `<family>.<iv>.<tag>.
 * <ciphertext>` (base64url parts), the version stored beside it; so each family rotates on
 * its own. A value of three parts was sealed before families were named: it opens with
 * the family's predecessor (the keys that sealed it then, e.g. the card data keys for a
 * webhook secret), or with the family itself when it has none. Each capability re-seals
 * such values, and those of an older version, under its current key at start.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Config } from '../serviceConfig.js';
import { keptSecret } from './settings.js';

/** AES-256 keys that seal one family's values at rest, by version, and the version new values are sealed under. */
export interface SealingKeys {
  /** The family's name, written in every value it seals (`card-data`, `webhook-secret`, `national-id`). */
  readonly family: string;
  /** Version new values are sealed under. */
  readonly current: number;
  /** 32-byte AES keys by version (the current one and every older one still readable). */
  readonly keys: ReadonlyMap<number, Buffer>;
  /** The keys that sealed this family's values before it had keys of its own (values of three parts). */
  readonly predecessor?: SealingKeys;
}

/** A value sealed at rest (`<family>.<iv>.<tag>.<ciphertext>`) and the version of the key that sealed it. */
export interface Sealed {
  sealed: string;
  keyVersion: number;
}

/** One key family's configuration: the current secret (unset: generated and kept), its version, older secrets by version. */
export interface KeyFamily {
  /** The family's name (`card-data`); its generated secret is kept as `card_data_key_v<version>`. */
  name: string;
  key?: string;
  version: number;
  previousKeys: Readonly<Record<number, string>>;
}

/**
 * The key families of `config`, by purpose; the one place their aliases are resolved:
 * IDENTITY_DATA_KEY, the old name of the national-id key, stands for NATIONAL_ID_KEY when
 * that is unset. (The card data keys, which sealed webhook secrets and kept idempotent
 * answers before these had a family, are those families' predecessor:
 * src/webhooks/secrets.ts, src/kernel/idempotency/idempotency.ts.)
 */
export function keyFamilies(config: Config): { cardData: KeyFamily; webhookSecret: KeyFamily; nationalId: KeyFamily; idempotencyReplay: KeyFamily; totpSecret: KeyFamily } {
  return {
    cardData: { name: 'card-data', key: config.cardDataKey, version: config.cardDataKeyVersion, previousKeys: config.cardDataPreviousKeys },
    webhookSecret: { name: 'webhook-secret', key: config.webhookSecretKey, version: config.webhookSecretKeyVersion, previousKeys: config.webhookSecretPreviousKeys },
    nationalId: { name: 'national-id', key: config.nationalIdKey ?? config.identityDataKey, version: config.nationalIdKeyVersion, previousKeys: config.nationalIdPreviousKeys },
    idempotencyReplay: {
      name: 'idempotency-replay',
      key: config.idempotencyReplayKey,
      version: config.idempotencyReplayKeyVersion,
      previousKeys: config.idempotencyReplayPreviousKeys,
    },
    totpSecret: { name: 'totp-secret', key: config.totpSecretKey, version: config.totpSecretKeyVersion, previousKeys: config.totpSecretPreviousKeys },
  };
}

/** A 32-byte key for `purpose` derived from `secret` (HMAC-SHA256). */
export const deriveKey = (secret: Buffer, purpose: string): Buffer => createHmac('sha256', secret).update(purpose).digest();

/**
 * Sealing keys of `family` from its secrets by version: each AES key is
 * HMAC-SHA256(secret, `purpose`). Throws when the current version has no secret or a
 * version is not a positive integer.
 */
export function sealingKeys(family: string, current: number, secrets: ReadonlyMap<number, Buffer>, purpose: string, predecessor?: SealingKeys): SealingKeys {
  const keys = new Map<number, Buffer>();
  for (const [version, secret] of secrets) {
    if (!Number.isInteger(version) || version < 1) throw new Error(`${family} key version must be a positive integer, got ${version}`);
    keys.set(version, deriveKey(secret, purpose));
  }
  if (!keys.has(current)) throw new Error(`no ${family} key of the current version ${current}`);
  return { family, current, keys, predecessor };
}

/**
 * A family's secrets by version: the current one (from its settings, or generated and
 * kept in `db`) and the previous ones.
 */
export async function familySecrets(db: Knex, family: KeyFamily): Promise<Map<number, Buffer>> {
  const secrets = new Map<number, Buffer>();
  for (const [version, secret] of Object.entries(family.previousKeys)) secrets.set(Number(version), Buffer.from(secret, 'utf8'));
  secrets.set(family.version, await keptSecret(db, `${family.name.replaceAll('-', '_')}_key_v${family.version}`, family.key));
  return secrets;
}

/** The sealing keys of `family` for `purpose`, a generated current secret read from (or first written to) `db`. */
export async function familyKeys(db: Knex, family: KeyFamily, purpose: string, predecessor?: SealingKeys): Promise<SealingKeys> {
  return sealingKeys(family.name, family.version, await familySecrets(db, family), purpose, predecessor);
}

/** Seals `value` under the family's current key with `context` as additional authenticated data. */
export function sealValue(keys: SealingKeys, context: string, value: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keys.keys.get(keys.current)!, iv);
  cipher.setAAD(Buffer.from(context));
  const data = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return { sealed: [keys.family, ...[iv, cipher.getAuthTag(), data].map((p) => p.toString('base64url'))].join('.'), keyVersion: keys.current };
}

/**
 * Opens a value sealed by `sealValue` with the same `context` (one of three parts with the
 * family's predecessor, see the module comment). Throws when it names another family, its
 * key version is unknown, or it was altered, sealed for another context, or under another
 * key (the GCM tag does not verify).
 */
export function openValue(keys: SealingKeys, context: string, value: Sealed): string {
  const parts = value.sealed.split('.');
  if (parts.length === 4 && parts[0] !== keys.family) throw new Error(`a value sealed by the ${parts[0]} keys, not ${keys.family}`);
  if (parts.length !== 3 && parts.length !== 4) throw new Error(`not a value sealed by the ${keys.family} keys`);
  const family = parts.length === 3 ? (keys.predecessor ?? keys) : keys;
  const key = family.keys.get(value.keyVersion);
  if (!key) throw new Error(`no ${family.family} key of version ${value.keyVersion}`);
  const [iv, tag, data] = parts.slice(-3).map((p) => Buffer.from(p, 'base64url'));
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
}
