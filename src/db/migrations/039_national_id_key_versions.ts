/**
 * National ids are sealed by the one sealing implementation (src/kernel/secrets/
 * sealing.ts) under the national-id key family, with their key version beside them
 * (`customers.national_id_key_version`). Those sealed before keep a null version: they
 * open with the key they were sealed under, and the start re-seals them under the
 * current key (src/customers/identityData.ts resealNationalIds).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE customers ADD COLUMN national_id_key_version integer');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE customers DROP COLUMN national_id_key_version');
}
