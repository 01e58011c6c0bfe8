/**
 * Pinned API versions: a business's default API version (what its requests without
 * `X-API-Version` use) and each webhook endpoint's (what its events are rendered at).
 * Existing rows get `v1`, the version they were served until now. The values are checked
 * by the API (the `ApiVersion` enum), not by a constraint: the list grows with each version.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw("ALTER TABLE businesses ADD COLUMN api_version text NOT NULL DEFAULT 'v1'");
  await knex.raw("ALTER TABLE webhook_endpoints ADD COLUMN api_version text NOT NULL DEFAULT 'v1'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhook_endpoints DROP COLUMN api_version');
  await knex.raw('ALTER TABLE businesses DROP COLUMN api_version');
}
