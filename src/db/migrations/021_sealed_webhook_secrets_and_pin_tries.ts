/**
 * Webhook endpoint secrets sealed at rest, and the cards' PIN try counter.
 *
 * - `webhook_endpoints.secret_sealed` / `secret_key_version`: the secret sealed with
 *   AES-256-GCM under the data keys (src/webhooks/secrets.ts). The clear `secret`
 *   column becomes nullable: a migration cannot reach the keys, which come from the
 *   environment (or `settings` in the sandbox), so rows stored in clear are sealed by
 *   the service at start-up (`resealEndpointSecrets`), and read in clear until then.
 *   Every row holds its secret one way or the other.
 * - `cards.pin_failed_tries`: wrong PINs in a row (src/cards/simulator.ts); at 3
 *   the PIN is blocked until a new one is set through the set-PIN step.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE webhook_endpoints
      ALTER COLUMN secret DROP NOT NULL,
      ADD COLUMN secret_sealed text,
      ADD COLUMN secret_key_version integer,
      ADD CONSTRAINT webhook_endpoints_sealed_with_version CHECK ((secret_sealed IS NULL) = (secret_key_version IS NULL)),
      ADD CONSTRAINT webhook_endpoints_secret_kept CHECK (secret IS NOT NULL OR secret_sealed IS NOT NULL);
    ALTER TABLE cards
      ADD COLUMN pin_failed_tries integer NOT NULL DEFAULT 0,
      ADD CONSTRAINT cards_pin_failed_tries_range CHECK (pin_failed_tries BETWEEN 0 AND 3);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE cards DROP CONSTRAINT cards_pin_failed_tries_range, DROP COLUMN pin_failed_tries;
    ALTER TABLE webhook_endpoints
      DROP CONSTRAINT webhook_endpoints_secret_kept,
      DROP CONSTRAINT webhook_endpoints_sealed_with_version,
      DROP COLUMN secret_key_version,
      DROP COLUMN secret_sealed;
  `);
}
