/**
 * Indexes that serve a filtered list page in the page's order (newest first: created_at,
 * id), so that a page is one index range however many rows of the business the filter
 * leaves out, and nothing is sorted:
 *
 * - listCustomerPayouts by status and by external reference: `payouts (business_id, status,
 *   created_at, id)`, replacing `payouts (business_id, status)`, and `payouts (business_id,
 *   external_reference, created_at, id)`;
 * - listWallets by name and by external reference: `accounts (business_id, name,
 *   created_at, id)` and `accounts (business_id, external_reference, created_at, id)`,
 *   replacing the two without the order (lookupWallet reads their first columns).
 */
import type { Knex } from 'knex';

const REPLACED: [string, string, string][] = [
  ['payouts_business_id_status_index', 'payouts_business_id_status_created_at_id_index', 'payouts (business_id, status'],
  ['accounts_business_id_name_index', 'accounts_business_id_name_created_at_id_index', 'accounts (business_id, name'],
  ['accounts_business_id_external_reference_index', 'accounts_business_id_external_reference_created_at_id_index', 'accounts (business_id, external_reference'],
];

export async function up(knex: Knex): Promise<void> {
  for (const [old, index, on] of REPLACED) {
    await knex.raw(`CREATE INDEX ${index} ON ${on}, created_at, id)`);
    await knex.raw(`DROP INDEX ${old}`);
  }
  await knex.raw('CREATE INDEX payouts_business_id_external_reference_created_at_id_index ON payouts (business_id, external_reference, created_at, id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX payouts_business_id_external_reference_created_at_id_index');
  for (const [old, index, on] of REPLACED) {
    await knex.raw(`CREATE INDEX ${old} ON ${on})`);
    await knex.raw(`DROP INDEX ${index}`);
  }
}
