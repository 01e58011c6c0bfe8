/**
 * The index of listEvents' `object_id` filter (core.yaml EventObjectFilter): a business's
 * events about one object, newest first, read as one index range whatever the business's
 * history. An event's object is the payout its data names (`payout.*`), else the customer
 * (`onboarding.complete`). listEvents (src/webhooks/events.ts) filters on the same
 * expression, written the same way, so that the planner matches it to this index
 * (test/platform/database/listPlans.test.ts). Events about no object (`topup.complete`) are left out
 * of the index (partial), so that it grows only with the events it serves.
 */
import type { Knex } from 'knex';

/** An event's object, as listEvents names it. */
const EVENT_OBJECT = "COALESCE(data->>'payout_id', data->>'customer_id')";

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX outbox_events_business_id_object_created_at_id_index ON outbox_events (business_id, (${EVENT_OBJECT}), created_at, id) WHERE ${EVENT_OBJECT} IS NOT NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX outbox_events_business_id_object_created_at_id_index');
}
