/**
 * A business's payout settings in a tenant table of their own: `payout_settings`
 * (business_id, whitelist_enforced), replacing `businesses.payout_whitelist_enforced`.
 *
 * `payout_create` (src/payouts/sql/payout_create.sql) reads whether the business enforces
 * its whitelist in the payout's transaction. `businesses` is a reference table on Citus
 * (docs/scale-out.md), and a function delegated to the business's node reads only rows of
 * its business's shards: the setting lives with the business's other payout rows. A
 * business without a row does not enforce its whitelist (the default it always had).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE payout_settings (
      business_id uuid NOT NULL,
      whitelist_enforced boolean NOT NULL DEFAULT false,
      updated_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      CONSTRAINT payout_settings_pkey PRIMARY KEY (business_id),
      CONSTRAINT payout_settings_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id)
    );
    INSERT INTO payout_settings (business_id, whitelist_enforced)
      SELECT id, true FROM businesses WHERE payout_whitelist_enforced;
    ALTER TABLE businesses DROP COLUMN payout_whitelist_enforced;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE businesses ADD COLUMN payout_whitelist_enforced boolean NOT NULL DEFAULT false;
    UPDATE businesses b SET payout_whitelist_enforced = true FROM payout_settings s WHERE s.business_id = b.id AND s.whitelist_enforced;
    DROP TABLE payout_settings;
  `);
}
