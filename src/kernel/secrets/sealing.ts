/**
 * Sealing values at rest: AES-256-GCM (random 96-bit IV, 128-bit tag) under
 * versioned data keys, with a context (what the value belongs to, e.g.
 * `card:<id>:pan`, `webhook-endpoint:<id>:secret`) as additional authenticated data,
 * so a sealed value cannot be moved to another owner or field. The key's version is
 * stored beside each value, so keys rotate: new values use the current key, older
 * ones open with the key of their version.
 *
 * Keys: one deployment's data key secrets (CARD_DATA_KEY as version
 * CARD_DATA_KEY_VERSION, older versions from CARD_DATA_PREVIOUS_KEYS; in the sandbox an
 * unset CARD_DATA_KEY is generated once and kept in `settings`, like the JWT key, so
 * every instance and restart reads the same values; src/config.ts refuses to start
 * without it when SANDBOX=false). Each purpose derives its own AES keys from them
 * (HMAC-SHA256(secret, purpose)), so values of different purposes (card data:
 * src/cards/keys.ts; webhook endpoint secrets: src/webhooks/secrets.ts) never share a key.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Config } from '../serviceConfig.js';
import { keptSecret } from './settings.js';

/** AES-256 keys that seal values at rest, by version, and the version new values are sealed under. */
export interface SealingKeys {
  /** Version new values are sealed under. */
  readonly current: number;
  /** 32-byte AES keys by version (the current one and every older one still readable). */
  readonly keys: ReadonlyMap<number, Buffer>;
}

/** A value sealed at rest (`<iv>.<tag>.<ciphertext>`, base64url) and the version of the key that sealed it. */
export interface Sealed {
  sealed: string;
  keyVersion: number;
}

/** The settings the data key secrets come from. */
export type DataKeySettings = Pick<Config, 'cardDataKey' | 'cardDataKeyVersion' | 'cardDataPreviousKeys'>;

/** A 32-byte key for `purpose` derived from `secret` (HMAC-SHA256). */
export const deriveKey = (secret: Buffer, purpose: string): Buffer => createHmac('sha256', secret).update(purpose).digest();

/**
 * Sealing keys for one purpose from the data key secrets by version: each AES key is
 * HMAC-SHA256(secret, `purpose`). Throws when the current version has no secret or a
 * version is not a positive integer.
 */
export function sealingKeys(current: number, secrets: ReadonlyMap<number, Buffer>, purpose: string): SealingKeys {
  const keys = new Map<number, Buffer>();
  for (const [version, secret] of secrets) {
    if (!Number.isInteger(version) || version < 1) throw new Error(`card data key version must be a positive integer, got ${version}`);
    keys.set(version, deriveKey(secret, purpose));
  }
  if (!keys.has(current)) throw new Error(`no card data key of the current version ${current}`);
  return { current, keys };
}

/**
 * The data key secrets by version: the current one (from `settings`, or generated and
 * kept in `db`) and the previous ones.
 */
export async function dataKeySecrets(db: Knex, settings: DataKeySettings): Promise<Map<number, Buffer>> {
  const secrets = new Map<number, Buffer>();
  for (const [version, secret] of Object.entries(settings.cardDataPreviousKeys)) secrets.set(Number(version), Buffer.from(secret, 'utf8'));
  secrets.set(settings.cardDataKeyVersion, await keptSecret(db, `card_data_key_v${settings.cardDataKeyVersion}`, settings.cardDataKey));
  return secrets;
}

/** The sealing keys of `purpose` for `settings`, a generated current secret read from (or first written to) `db`. */
export async function sealingKeysFor(db: Knex, settings: DataKeySettings, purpose: string): Promise<SealingKeys> {
  return sealingKeys(settings.cardDataKeyVersion, await dataKeySecrets(db, settings), purpose);
}

/**
 * Seals `value` under the current key with `context` as additional authenticated
 * data: `<iv>.<tag>.<ciphertext>` (base64url), AES-256-GCM with a random 96-bit IV.
 */
export function sealValue(keys: SealingKeys, context: string, value: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keys.keys.get(keys.current)!, iv);
  cipher.setAAD(Buffer.from(context));
  const data = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return { sealed: [iv, cipher.getAuthTag(), data].map((p) => p.toString('base64url')).join('.'), keyVersion: keys.current };
}

/**
 * Opens a value sealed by `sealValue` with the same `context`. Throws when its key
 * version is unknown, or when it was altered, sealed for another context, or under
 * another key (the GCM tag does not verify).
 */
export function openValue(keys: SealingKeys, context: string, value: Sealed): string {
  const key = keys.keys.get(value.keyVersion);
  if (!key) throw new Error(`no card data key of version ${value.keyVersion}`);
  const [iv, tag, data] = value.sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
}
