/**
 * National ids at rest: sealed (src/kernel/secrets/sealing.ts) under the national-id key
 * family (NATIONAL_ID_KEY, version NATIONAL_ID_KEY_VERSION, older versions in
 * NATIONAL_ID_PREVIOUS_KEYS) with `customer:<id>:national-id` as additional authenticated
 * data, in `customers.national_id_sealed` with its key version in
 * `national_id_key_version`, so that a provider can be asked again (the mobile number
 * ownership check); and a keyed hash (HMAC-SHA256 over `<business id>:<national id>`) for
 * lookups and uniqueness within a business, never comparable across businesses, under
 * NATIONAL_ID_INDEX_KEY, which never rotates (the hashes stored depend on it).
 *
 * IDENTITY_DATA_KEY (generated once and kept in `settings` as `identity_data_key` when
 * unset) is the old name of both keys, and the key of the national ids sealed before key
 * versions (`v1.<iv>.<tag>.<ciphertext>`, no additional data, no key version stored): the
 * family's predecessor. `resealNationalIds` re-seals those, and those of an older key
 * version, under the current key at start. No national id is ever logged or returned.
 */
import { createHmac } from 'node:crypto';
import type { Knex } from 'knex';
import type { Config } from '../kernel/serviceConfig.js';
import { deriveKey, familyKeys, keyFamilies, openValue, sealingKeys, sealValue, type SealingKeys } from '../kernel/secrets/sealing.js';
import { resealColumn } from '../kernel/secrets/reseal.js';
import { keptSecret } from '../kernel/secrets/settings.js';

/** The national ids' sealing keys and the key of their lookup hash. */
export interface NationalIdKeys {
  seal: SealingKeys;
  /** 32-byte HMAC key of the lookup hash (never rotated). */
  index: Buffer;
}

/**
 * The national-id keys of `config`, generated secrets read from (or first written to)
 * `db`. Derived once, at start (src/server.ts), and handed to the handlers in
 * Services.keys. Throws like `sealingKeys` on a malformed configuration.
 */
export async function nationalIdKeys(db: Knex, config: Config): Promise<NationalIdKeys> {
  const identityData = await keptSecret(db, 'identity_data_key', config.identityDataKey);
  const predecessor = sealingKeys('identity-data', 1, new Map([[1, identityData]]), 'national-id-seal-v1');
  return {
    seal: await familyKeys(db, keyFamilies(config).nationalId, 'national-id-seal', predecessor),
    index: deriveKey(config.nationalIdIndexKey ? Buffer.from(config.nationalIdIndexKey, 'utf8') : identityData, 'national-id-index-v1'),
  };
}

/** The keyed hash of a business's customer's national id. */
export function nationalIdHash(keys: NationalIdKeys, businessId: string, nationalId: string): string {
  return createHmac('sha256', keys.index).update(`${businessId}:${nationalId}`).digest('hex');
}

/** The columns of `customers` that hold a sealed national id. */
export interface StoredNationalId {
  id: string;
  national_id_sealed: string;
  /** Null for a national id sealed before key versions (the predecessor's format). */
  national_id_key_version: number | null;
}

const context = (customerId: string): string => `customer:${customerId}:national-id`;

/** The sealed columns for customer `customerId`'s national id, under the current key. */
export function sealNationalId(keys: NationalIdKeys, customerId: string, nationalId: string): { national_id_sealed: string; national_id_key_version: number } {
  const { sealed, keyVersion } = sealValue(keys.seal, context(customerId), nationalId);
  return { national_id_sealed: sealed, national_id_key_version: keyVersion };
}

/**
 * The customer's national id in clear. Throws when its key version is not configured, or
 * it does not open (altered, another customer's, or under another key).
 */
export function openNationalId(keys: NationalIdKeys, row: StoredNationalId): string {
  if (row.national_id_key_version !== null) return openValue(keys.seal, context(row.id), { sealed: row.national_id_sealed, keyVersion: row.national_id_key_version });
  // Sealed before key versions: `v1.` and three parts, opened by the predecessor, with no additional data.
  if (!row.national_id_sealed.startsWith('v1.')) throw new Error('unknown sealed national id format');
  return openValue(keys.seal, '', { sealed: row.national_id_sealed.slice('v1.'.length), keyVersion: 1 });
}

/**
 * Re-seals every national id sealed before key versions or under an older key version
 * under the current key (src/kernel/secrets/reseal.ts). A national id whose key is not
 * configured is left as it is and counted in `unreadable`.
 */
export function resealNationalIds(db: Knex, keys: NationalIdKeys): Promise<{ resealed: number; unreadable: number }> {
  return resealColumn<StoredNationalId & { business_id: string }>(db, {
    table: 'customers',
    column: 'national_id_sealed',
    reads: ['national_id_sealed', 'national_id_key_version'],
    stale: (rows) => rows.whereNotNull('national_id_sealed').andWhere((older) => older.whereNull('national_id_key_version').orWhere('national_id_key_version', '<', keys.seal.current)),
    open: (row) => openNationalId(keys, row),
    seal: (row, clear) => sealNationalId(keys, row.id, clear),
  });
}
