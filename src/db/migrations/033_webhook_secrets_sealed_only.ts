/**
 * Webhook endpoint secrets are sealed only (src/webhooks/secrets.ts): the clear-text
 * `webhook_endpoints.secret`, which only rows from before sealing held and which every
 * start since sealed, is dropped, and every endpoint must hold a sealed secret.
 *
 * A database that still holds a secret in clear has not been started by a release that
 * seals them: the migration then refuses, changing nothing, and names what to do (start
 * the previous release once). Counting them reads every business's endpoints, on Citus
 * across shards (docs/scale-out.md).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw("SET LOCAL citus.multi_task_query_log_level = 'off'");
  const { rows } = await knex.raw('SELECT count(*)::int AS n FROM webhook_endpoints WHERE secret IS NOT NULL');
  if (rows[0].n > 0) {
    throw new Error(
      `${rows[0].n} webhook endpoint secret(s) are still stored in clear: start the previous release once (it seals them at start), then this one`,
    );
  }
  await knex.raw(`
    ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_secret_kept;
    ALTER TABLE webhook_endpoints DROP COLUMN secret;
    ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_secret_kept CHECK (secret_sealed IS NOT NULL);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_secret_kept;
    ALTER TABLE webhook_endpoints ADD COLUMN secret text;
    ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_secret_kept CHECK (secret IS NOT NULL OR secret_sealed IS NOT NULL);
  `);
}
