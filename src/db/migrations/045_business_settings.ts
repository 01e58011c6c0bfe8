/**
 * A business's display settings (`updateBusiness`): the IANA time zone its people read dates
 * in (`time_zone`, UTC until set) and the payout account's balance below which its portal
 * warns (`payout_low_balance_threshold`, none until set).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE businesses ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC', ADD COLUMN payout_low_balance_threshold numeric(20, 2) CHECK (payout_low_balance_threshold >= 0)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE businesses DROP COLUMN time_zone, DROP COLUMN payout_low_balance_threshold');
}
