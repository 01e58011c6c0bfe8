/**
 * The outbox's pending events in a table of their own (`outbox_pending`), so that the
 * outbox itself is insert-only.
 *
 * The relay marked each event dispatched by updating `outbox_events.dispatched_at`.
 * That column was indexed (the relay's scan for undispatched events), so the update could
 * never be a HOT update: each event was written twice, with every index entry of both
 * versions (about 1 KB of WAL per event), and the relay's scan walked the dead entries
 * of the events just dispatched. Now an event is pending while it has a row in
 * `outbox_pending` (a trigger of `outbox_events` inserts it, in the producer's
 * transaction: src/webhooks/sql/outbox_event_pending.sql), and the relay deletes the rows it
 * dispatches. Events still undispatched when this runs become pending rows.
 *
 * `outbox_pending` has no foreign key to `outbox_events`: its rows are written only by
 * that trigger, in the event's transaction, and a foreign key would lock the event row
 * (FOR KEY SHARE, with its WAL record) at every insert.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE outbox_pending (
      created_at timestamptz(3) NOT NULL,
      event_id uuid NOT NULL,
      business_id uuid,
      PRIMARY KEY (created_at, event_id)
    );
    INSERT INTO outbox_pending (created_at, event_id, business_id)
      SELECT created_at, id, business_id FROM outbox_events WHERE dispatched_at IS NULL;
    ALTER TABLE outbox_events DROP COLUMN dispatched_at;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE outbox_events ADD COLUMN dispatched_at timestamptz(3);
    UPDATE outbox_events e SET dispatched_at = now() WHERE NOT EXISTS (SELECT 1 FROM outbox_pending p WHERE p.event_id = e.id);
    CREATE INDEX outbox_events_dispatched_at_created_at_index ON outbox_events (dispatched_at, created_at);
    DROP TABLE outbox_pending;
  `);
}
