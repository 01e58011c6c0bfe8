/**
 * Customers and their onboarding (core API, issue 6, slice 1): customers,
 * onboarding sessions, the one OTP engine's operations, and the sandbox's
 * per-business clock, SMS outbox and provider-outage switches.
 *
 * Every table of a business's data carries `business_id`. OTP codes are never
 * stored: only a keyed hash (HMAC-SHA256) of them. Rule timestamps (expiry,
 * completion) are written from the business's clock (src/kernel/clock.ts);
 * `created_at`/`updated_at` are the database's.
 */
import type { Knex } from 'knex';

const TS = { useTz: true, precision: 3 } as const;

export async function up(knex: Knex): Promise<void> {
  // Sandbox clock: how far one business's clock runs ahead of real time.
  await knex.schema.createTable('sandbox_clocks', (t) => {
    t.uuid('business_id').primary().references('businesses.id');
    t.bigInteger('offset_ms').notNullable().defaultTo(0);
    t.timestamp('updated_at', TS).notNullable().defaultTo(knex.fn.now(3));
  });
  await knex.raw('ALTER TABLE sandbox_clocks ADD CONSTRAINT sandbox_clocks_forward CHECK (offset_ms >= 0)');

  // Sandbox SMS provider: what a handset would receive.
  await knex.schema.createTable('sandbox_sms_messages', (t) => {
    t.uuid('id').primary();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.text('mobile_number').notNullable();
    t.text('text').notNullable();
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.index(['business_id', 'created_at', 'id']);
    t.index(['business_id', 'mobile_number', 'created_at', 'id']);
  });

  // Sandbox provider outages: the next `remaining` calls of a provider fail.
  await knex.schema.createTable('sandbox_provider_outages', (t) => {
    t.uuid('business_id').notNullable().references('businesses.id');
    t.text('provider').notNullable();
    t.integer('remaining').notNullable();
    t.primary(['business_id', 'provider']);
  });

  await knex.schema.createTable('otp_operations', (t) => {
    t.uuid('id').primary();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.text('purpose').notNullable();
    t.text('mobile_number').notNullable();
    t.text('code_hash').notNullable();
    t.integer('digits').notNullable();
    t.text('status').notNullable().checkIn(['PENDING', 'VERIFIED', 'FAILED', 'EXPIRED']);
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('max_attempts').notNullable();
    t.integer('resend_count').notNullable().defaultTo(0);
    t.uuid('previous_operation_id').references('otp_operations.id');
    t.timestamp('sent_at', TS).notNullable();
    t.timestamp('expires_at', TS).notNullable();
    t.timestamp('verified_at', TS);
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.index(['business_id', 'created_at']);
  });
  await knex.raw(`ALTER TABLE otp_operations
    ADD CONSTRAINT otp_operations_attempts_cap CHECK (attempts >= 0 AND attempts <= max_attempts)`);

  await knex.schema.createTable('customers', (t) => {
    t.uuid('id').primary();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.text('status').notNullable().checkIn(['PENDING', 'ACTIVE', 'INACTIVE']);
    t.text('mobile_number').notNullable();
    t.text('locale').notNullable();
    t.text('external_reference');
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.index(['business_id', 'created_at', 'id']);
    t.index(['business_id', 'mobile_number']);
  });
  // One ACTIVE customer per mobile number in a business.
  await knex.raw(`CREATE UNIQUE INDEX customers_active_mobile_number
    ON customers (business_id, mobile_number) WHERE status = 'ACTIVE'`);

  await knex.schema.createTable('onboarding_sessions', (t) => {
    t.uuid('id').primary();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.uuid('customer_id').notNullable().references('customers.id');
    t.text('status').notNullable();
    t.text('status_reason');
    t.text('mobile_number').notNullable();
    t.text('locale').notNullable();
    t.uuid('otp_operation_id').notNullable().references('otp_operations.id');
    t.timestamp('expires_at', TS).notNullable();
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.index(['business_id', 'mobile_number', 'status']);
    t.index(['customer_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['onboarding_sessions', 'customers', 'otp_operations', 'sandbox_provider_outages', 'sandbox_sms_messages', 'sandbox_clocks']) {
    await knex.schema.dropTableIfExists(table);
  }
}
