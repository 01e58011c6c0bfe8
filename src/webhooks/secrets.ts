/**
 * Webhook endpoint secrets at rest. The secret an integrator registers (E3's
 * `secret`, a Standard Webhooks `whsec_…` key) signs every delivery, so it must be
 * readable; it is kept sealed (src/kernel/sealing.ts): AES-256-GCM under the
 * data keys derived for this purpose (`webhookSecretKeys`), with `webhook-endpoint:<id>:secret` as additional
 * authenticated data (a sealed secret cannot be moved to another endpoint), in
 * `webhook_endpoints.secret_sealed` with its key version in `secret_key_version`.
 *
 * Rotation: a secret opens with the key of its stored version as long as that version
 * is configured (current or in CARD_DATA_PREVIOUS_KEYS), so deliveries keep being
 * signed after the current key changes. At every start-up `resealEndpointSecrets`
 * seals what an earlier version stored in clear (`secret`) and re-seals secrets of an
 * older key version under the current one, so an old key can be retired once every
 * instance has started with the new one.
 */
import type { Knex } from 'knex';
import { openValue, sealingKeysFor, sealValue, type DataKeySettings, type SealingKeys } from '../kernel/sealing.js';

/** The keys that seal webhook endpoint secrets: the data keys, derived for that purpose; a generated current secret is read from (or first written to) `db`. */
export function webhookSecretKeys(db: Knex, settings: DataKeySettings): Promise<SealingKeys> {
  return sealingKeysFor(db, settings, 'webhook-secret-seal');
}

/** The columns of `webhook_endpoints` that hold its secret (clear only in rows from before sealing). */
export interface StoredSecret {
  id: string;
  secret: string | null;
  secret_sealed: string | null;
  secret_key_version: number | null;
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
  if (row.secret_sealed === null || row.secret_key_version === null) {
    if (row.secret === null) throw new Error(`webhook endpoint ${row.id} has no secret`);
    return row.secret;
  }
  return openValue(keys, context(row.id), { sealed: row.secret_sealed, keyVersion: row.secret_key_version });
}

/** Endpoints handled per statement by `resealEndpointSecrets`. */
const BATCH = 500;

/**
 * Seals every secret still stored in clear and re-seals every secret of a key
 * version older than the current one (see the module comment). Safe with several
 * instances starting at once: each row is updated only if it still holds what was
 * read. A secret whose key version is not configured is left as it is and counted
 * in `unreadable` (its deliveries fail until the key is configured again).
 */
export async function resealEndpointSecrets(db: Knex, keys: SealingKeys): Promise<{ sealed: number; unreadable: number }> {
  let sealed = 0;
  let unreadable = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows: StoredSecret[] = await db('webhook_endpoints')
      .where('id', '>', after)
      .andWhere((q) => q.whereNotNull('secret').orWhere('secret_key_version', '<', keys.current))
      .orderBy('id')
      .limit(BATCH)
      .select('id', 'secret', 'secret_sealed', 'secret_key_version');
    for (const row of rows) {
      let clear: string;
      try {
        clear = endpointSecret(keys, row);
      } catch {
        unreadable++;
        continue;
      }
      const updated = await db('webhook_endpoints')
        .where({ id: row.id })
        .whereRaw('secret IS NOT DISTINCT FROM ? AND secret_sealed IS NOT DISTINCT FROM ?', [row.secret, row.secret_sealed])
        .update({ secret: null, ...sealEndpointSecret(keys, row.id, clear) });
      sealed += updated;
    }
    if (rows.length < BATCH) return { sealed, unreadable };
    after = rows[rows.length - 1].id;
  }
}
