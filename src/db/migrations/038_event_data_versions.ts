/**
 * Each event says which API version's shape its `data` is in (`outbox_events.data_version`),
 * so that it is rendered at any version, whenever it is read: brought up from the shape it
 * was stored in, then down to the version of the endpoint or request that receives it
 * (src/kernel/versioning/versionChange.ts eventData). Every event stored so far, and every
 * event whose shape no version change touches, is in v3's shape (v1 to v3 shared it): the
 * default, a constant, so the column is added without rewriting the table.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw("ALTER TABLE outbox_events ADD COLUMN data_version text NOT NULL DEFAULT 'v3'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE outbox_events DROP COLUMN data_version');
}
