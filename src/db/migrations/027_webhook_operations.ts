/**
 * What integrators need to operate their webhook endpoints (src/webhooks/endpoints.ts,
 * src/webhooks/attempts.ts, src/webhooks/recovery.ts), as DDL only:
 *
 * - `webhook_endpoints`: a `description`; a `deleted_at` (a deleted endpoint keeps its
 *   row, DISABLED, because its deliveries and attempts refer to it; no operation shows it
 *   again); the previous secret of a rotation, sealed like the current one, and when it
 *   stops signing; `failing_since`, the business time of the first failed attempt since
 *   the last successful one (the automatic disabling of failing endpoints reads it);
 *   `updated_at`.
 * - `webhook_deliveries`: the kinds TEST (`sendWebhookTestEvent`) and RECOVERY
 *   (`recoverWebhookDeliveries`); `recovered_at` marks a failed delivery already sent
 *   again by a recovery, so that a second recovery does not send it twice.
 * - `webhook_delivery_attempts`: the first KiB of the response body and the time of the
 *   next attempt, as recorded with the attempt; an index for the endpoint's attempt log,
 *   newest first.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE webhook_endpoints
      ADD COLUMN description text,
      ADD COLUMN deleted_at timestamp(3) with time zone,
      ADD COLUMN previous_secret_sealed text,
      ADD COLUMN previous_secret_key_version integer,
      ADD COLUMN previous_secret_expires_at timestamp(3) with time zone,
      ADD COLUMN failing_since timestamp(3) with time zone,
      ADD COLUMN updated_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      ADD CONSTRAINT webhook_endpoints_previous_secret_complete CHECK (
        (previous_secret_sealed IS NULL) = (previous_secret_key_version IS NULL)
        AND (previous_secret_sealed IS NULL) = (previous_secret_expires_at IS NULL)
      );

    ALTER TABLE webhook_deliveries
      ADD COLUMN recovered_at timestamp(3) with time zone,
      DROP CONSTRAINT webhook_deliveries_kind_check,
      ADD CONSTRAINT webhook_deliveries_kind_check CHECK (kind IN ('EVENT', 'REDELIVERY', 'TEST', 'RECOVERY'));
    -- recoverWebhookDeliveries: an endpoint's deliveries not yet recovered, by their last change.
    CREATE INDEX webhook_deliveries_endpoint_id_updated_at_unrecovered_index
      ON webhook_deliveries (endpoint_id, updated_at) WHERE recovered_at IS NULL;

    ALTER TABLE webhook_delivery_attempts
      ADD COLUMN response_body text,
      ADD COLUMN next_attempt_at timestamp(3) with time zone;
    -- listWebhookDeliveryAttempts: an endpoint's attempts newest first.
    CREATE INDEX webhook_delivery_attempts_endpoint_id_created_at_id_index ON webhook_delivery_attempts (endpoint_id, created_at, id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX webhook_delivery_attempts_endpoint_id_created_at_id_index;
    ALTER TABLE webhook_delivery_attempts DROP COLUMN response_body, DROP COLUMN next_attempt_at;
    DROP INDEX webhook_deliveries_endpoint_id_updated_at_unrecovered_index;
    ALTER TABLE webhook_deliveries
      DROP CONSTRAINT webhook_deliveries_kind_check,
      -- NOT VALID: the TEST and RECOVERY deliveries already made stay as they are.
      ADD CONSTRAINT webhook_deliveries_kind_check CHECK (kind IN ('EVENT', 'REDELIVERY')) NOT VALID,
      DROP COLUMN recovered_at;
    ALTER TABLE webhook_endpoints
      DROP CONSTRAINT webhook_endpoints_previous_secret_complete,
      DROP COLUMN description, DROP COLUMN deleted_at, DROP COLUMN previous_secret_sealed,
      DROP COLUMN previous_secret_key_version, DROP COLUMN previous_secret_expires_at,
      DROP COLUMN failing_since, DROP COLUMN updated_at;
  `);
}
