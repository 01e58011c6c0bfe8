/**
 * Mobile number changes (core API, issue 6, slice 3): one session per change
 * request, from the profile settings (seed E7) or from the login screen, and
 * the time of a customer's last completed change (one per 24 hours).
 */
import type { Knex } from 'knex';

const TS = { useTz: true, precision: 3 } as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('customers', (t) => {
    t.timestamp('mobile_number_changed_at', TS);
  });
  await knex.schema.createTable('mobile_number_change_sessions', (t) => {
    t.uuid('id').primary();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.uuid('customer_id').notNullable().references('customers.id');
    t.text('channel').notNullable().checkIn(['PROFILE', 'LOGIN']);
    t.text('status').notNullable();
    t.text('status_reason');
    t.text('old_mobile_number').notNullable();
    t.text('new_mobile_number').notNullable();
    t.text('locale').notNullable();
    t.uuid('otp_operation_id').notNullable().references('otp_operations.id');
    t.text('ownership_check').notNullable().checkIn(['PENDING', 'CONFIRMED', 'REJECTED']);
    t.timestamp('expires_at', TS).notNullable();
    t.timestamp('completed_at', TS);
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.index(['customer_id', 'status']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('mobile_number_change_sessions');
  await knex.schema.alterTable('customers', (t) => t.dropColumn('mobile_number_changed_at'));
}
