/**
 * What an operator needs to debug a webhook delivery (src/webhooks/attempts.ts), as DDL and
 * the one backfill of the new filter columns:
 *
 * - `webhook_delivery_attempts`: the request as sent (its headers, the bearer token left out,
 *   and its body, bounded) and the response's headers (bounded, cookies left out); `trigger`
 *   (AUTOMATIC: the event's own delivery; MANUAL: a delivery someone asked for) and `number`
 *   (the attempt's number among all the attempts of its event to its endpoint, so that a
 *   resend continues the count; NULL on attempts recorded before, read as `attempt`);
 *   `event_code` and `payout_id` (the event's `data.payout_id`), copied from the event so that
 *   the log's filters read one index range of the endpoint's attempts.
 * - Indexes for the log filtered by event code, by payout and by event, newest first (the
 *   last also counts an event's earlier attempts when a resend is numbered).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE webhook_delivery_attempts
      ADD COLUMN trigger text NOT NULL DEFAULT 'AUTOMATIC' CONSTRAINT webhook_delivery_attempts_trigger_check CHECK (trigger IN ('AUTOMATIC', 'MANUAL')),
      ADD COLUMN number integer,
      ADD COLUMN event_code text,
      ADD COLUMN payout_id uuid,
      ADD COLUMN request_headers jsonb,
      ADD COLUMN request_body text,
      ADD COLUMN response_headers jsonb;
    UPDATE webhook_delivery_attempts a
       SET event_code = e.code,
           payout_id = CASE WHEN e.data->>'payout_id' ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' THEN (e.data->>'payout_id')::uuid END
      FROM outbox_events e
     WHERE e.business_id = a.business_id AND e.id = a.event_id;
    CREATE INDEX webhook_attempts_endpoint_event_code_index ON webhook_delivery_attempts (endpoint_id, event_code, created_at, id);
    CREATE INDEX webhook_attempts_endpoint_payout_index ON webhook_delivery_attempts (endpoint_id, payout_id, created_at, id) WHERE payout_id IS NOT NULL;
    CREATE INDEX webhook_attempts_endpoint_event_index ON webhook_delivery_attempts (endpoint_id, event_id, created_at, id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX webhook_attempts_endpoint_event_index;
    DROP INDEX webhook_attempts_endpoint_payout_index;
    DROP INDEX webhook_attempts_endpoint_event_code_index;
    ALTER TABLE webhook_delivery_attempts
      DROP COLUMN trigger, DROP COLUMN number, DROP COLUMN event_code, DROP COLUMN payout_id,
      DROP COLUMN request_headers, DROP COLUMN request_body, DROP COLUMN response_headers;
  `);
}
