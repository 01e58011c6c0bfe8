/**
 * The index listWallets' and lookupWallet's `external_reference` read: a business's
 * accounts by their external reference (`accounts (business_id, external_reference)`).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX accounts_business_id_external_reference_index ON accounts (business_id, external_reference)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX accounts_business_id_external_reference_index');
}
