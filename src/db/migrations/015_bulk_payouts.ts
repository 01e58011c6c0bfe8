/**
 * Bulk payouts (core.yaml `createBulkPayout`): one batch per (business,
 * idempotency key) and one row per item in the request's order. An accepted item points
 * at its payout (made by `createPayout`'s own path, so its ledger and events are those of
 * a single payout); a rejected item keeps the code and reason of its refusal. The batch
 * and all its items are written in one database transaction.
 */
import type { Knex } from 'knex';

const TS = { useTz: true, precision: 3 } as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('bulk_payouts', (t) => {
    t.uuid('id').primary();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.text('idempotency_key').notNullable();
    // sha-256 of the request (http/idempotency.ts requestHash): a replay must match it.
    t.text('request_hash').notNullable();
    t.integer('item_count').notNullable();
    t.integer('accepted_count').notNullable();
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.unique(['business_id', 'idempotency_key']);
  });
  await knex.schema.createTable('bulk_payout_items', (t) => {
    t.uuid('id').primary();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.uuid('bulk_payout_id').notNullable().references('bulk_payouts.id');
    t.integer('item_index').notNullable();
    t.uuid('payout_id').unique().references('payouts.id');
    t.uuid('customer_id').references('customers.id');
    // The requested amount when it is a valid amount (a rejected item's may not be).
    t.decimal('amount', 20, 2);
    t.specificType('currency', 'char(3)').notNullable();
    t.text('external_reference');
    t.text('rejection_code');
    t.text('rejection_detail');
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.unique(['bulk_payout_id', 'item_index']);
  });
  await knex.raw(`ALTER TABLE bulk_payout_items ADD CONSTRAINT bulk_payout_items_payout_or_rejection
    CHECK ((payout_id IS NULL) <> (rejection_code IS NULL))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('bulk_payout_items');
  await knex.schema.dropTable('bulk_payouts');
}
