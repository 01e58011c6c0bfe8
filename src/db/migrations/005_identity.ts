/**
 * Identity verification, screening and activation of customers (core API,
 * issue 6, slice 2): the customer's identity and KYC data, its wallet, the
 * requests made to providers (whose id is the `reference` their callbacks
 * carry), and the provider event ids already processed (replay protection).
 *
 * National ids are kept sealed (AES-256-GCM) and, for lookups and uniqueness,
 * as a keyed hash: never in clear (src/customers/identityData.ts).
 */
import type { Knex } from 'knex';

const TS = { useTz: true, precision: 3 } as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('customers', (t) => {
    t.text('full_name');
    t.text('date_of_birth'); // YYYY-MM-DD, as received
    t.text('national_id_hash');
    t.text('national_id_sealed');
    t.text('occupation_class');
    t.text('occupation');
    t.text('employer_name');
    t.text('income_source');
    t.text('monthly_income_range');
    t.boolean('politically_exposed');
    t.text('pep_relation');
    t.text('risk_rating');
    t.uuid('wallet_id').references('accounts.id');
    t.timestamp('activated_at', TS);
  });
  // One ACTIVE customer per national id in a business.
  await knex.raw(`CREATE UNIQUE INDEX customers_active_national_id
    ON customers (business_id, national_id_hash) WHERE status = 'ACTIVE'`);
  await knex.raw(`CREATE INDEX customers_national_id ON customers (business_id, national_id_hash)`);

  await knex.schema.createTable('provider_requests', (t) => {
    t.uuid('id').primary();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.text('provider').notNullable().checkIn(['IDENTITY_VERIFICATION', 'SCREENING']);
    t.text('kind').notNullable().checkIn(['IDENTITY', 'MOBILE_OWNERSHIP', 'SCREENING']);
    t.text('subject_type').notNullable().checkIn(['ONBOARDING', 'MOBILE_NUMBER_CHANGE']);
    t.uuid('subject_id').notNullable();
    t.text('status').notNullable().checkIn(['PENDING', 'COMPLETED']);
    t.text('outcome');
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('completed_at', TS);
    t.index(['subject_type', 'subject_id']);
  });

  await knex.schema.createTable('provider_callback_events', (t) => {
    t.text('provider').notNullable();
    t.text('event_id').notNullable();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.timestamp('received_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.primary(['provider', 'event_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('provider_callback_events');
  await knex.schema.dropTableIfExists('provider_requests');
  await knex.raw('DROP INDEX IF EXISTS customers_active_national_id; DROP INDEX IF EXISTS customers_national_id');
  await knex.schema.alterTable('customers', (t) => {
    for (const c of ['full_name', 'date_of_birth', 'national_id_hash', 'national_id_sealed', 'occupation_class', 'occupation', 'employer_name', 'income_source', 'monthly_income_range', 'politically_exposed', 'pep_relation', 'risk_rating', 'wallet_id', 'activated_at']) t.dropColumn(c);
  });
}
