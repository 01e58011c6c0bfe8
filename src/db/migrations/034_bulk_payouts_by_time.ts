/**
 * The index listBulkPayouts pages by: a business's bulk payouts newest first
 * (`bulk_payouts (business_id, created_at, id)`), so that a page is one index range
 * whatever the business's history.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX bulk_payouts_business_id_created_at_id_index ON bulk_payouts (business_id, created_at, id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX bulk_payouts_business_id_created_at_id_index');
}
