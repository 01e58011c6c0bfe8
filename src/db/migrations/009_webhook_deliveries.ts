/**
 * Webhook delivery: endpoints can be disabled (a 410 from the receiver),
 * one delivery per (event, endpoint) or per redelivery request, and one row per
 * HTTP attempt (status, latency, error). Every table carries `business_id`.
 * The job queue itself (pg-boss) keeps its own tables in the `pgboss` schema and
 * creates them on start (src/jobs/queue.ts).
 */
import type { Knex } from 'knex';

const TS = { useTz: true, precision: 3 } as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_endpoints', (t) => {
    t.text('disabled_reason');
    t.timestamp('disabled_at', TS);
  });
  // listEvents: a business's events newest first, optionally of one code.
  await knex.schema.alterTable('outbox_events', (t) => {
    t.index(['business_id', 'created_at', 'id']);
    t.index(['business_id', 'code', 'created_at', 'id']);
  });

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.uuid('id').primary();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.uuid('event_id').notNullable().references('outbox_events.id');
    t.uuid('endpoint_id').notNullable().references('webhook_endpoints.id');
    t.text('kind').notNullable().checkIn(['EVENT', 'REDELIVERY']);
    t.text('status').notNullable().checkIn(['PENDING', 'SUCCEEDED', 'FAILED', 'CANCELLED']);
    t.integer('attempt_count').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', TS);
    t.integer('last_status_code');
    t.text('last_error');
    t.timestamp('completed_at', TS);
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.index(['business_id', 'event_id']);
    t.index(['endpoint_id', 'status']);
  });
  // The dispatcher creates one delivery per (event, endpoint); redeliveries add more.
  await knex.raw("CREATE UNIQUE INDEX webhook_deliveries_once ON webhook_deliveries (event_id, endpoint_id) WHERE kind = 'EVENT'");
  await knex.raw('ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_attempts CHECK (attempt_count >= 0)');

  await knex.schema.createTable('webhook_delivery_attempts', (t) => {
    t.uuid('id').primary();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.uuid('delivery_id').notNullable().references('webhook_deliveries.id');
    t.uuid('event_id').notNullable();
    t.uuid('endpoint_id').notNullable();
    t.integer('attempt').notNullable();
    t.text('outcome').notNullable().checkIn(['SUCCEEDED', 'RETRY', 'FAILED', 'ENDPOINT_GONE']);
    t.integer('status_code');
    t.integer('latency_ms').notNullable();
    t.text('error');
    t.timestamp('started_at', TS).notNullable();
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.unique(['delivery_id', 'attempt']);
    t.index(['business_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_delivery_attempts');
  await knex.schema.dropTableIfExists('webhook_deliveries');
  await knex.schema.alterTable('outbox_events', (t) => {
    t.dropIndex(['business_id', 'created_at', 'id']);
    t.dropIndex(['business_id', 'code', 'created_at', 'id']);
  });
  await knex.schema.alterTable('webhook_endpoints', (t) => {
    t.dropColumn('disabled_reason');
    t.dropColumn('disabled_at');
  });
}
