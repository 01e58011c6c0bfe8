/**
 * The event outbox (docs/glossary.md, "Event outbox"): the business events the service
 * records in the transaction of their effect (`outbox_events`, insert-only), each pending
 * (a row of `outbox_pending`, made by the trigger of ./sql/outbox_event_pending.sql) until
 * the webhooks' relay dispatches it. This room owns both tables and is their one door:
 *   - producers record an event with emitEvent (TypeScript, in a Knex transaction) or
 *     event_emit / event_emit_set (PL/pgSQL, ./sql/event_emit.sql: the ledger's topup, the
 *     payouts' steps);
 *   - the relay (src/webhooks/dispatcher.ts) takes pending events with takePendingEvents,
 *     and reads the events themselves (a lower floor's table);
 *   - the metrics read the backlog through outboxBacklog, which the assembly
 *     (src/server.ts) gives createMetrics.
 * A floor below the ledger (src/db/tableOwners.ts): the ledger records its events here.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { acrossBusinesses } from '../db/acrossBusinesses.js';
import type { OutboxBacklog } from '../kernel/metrics/metrics.js';

/**
 * Records event `code` of business `businessId` in transaction `trx` (the transaction of
 * its effect, so that the event exists exactly when the effect does) and returns its id, a
 * random UUID. `data` is stored as it is, in v3's shape (the column's default,
 * src/db/migrations/038_event_data_versions.ts), stamped with the transaction's time.
 * Throws the database's error (a business that does not exist: foreign key).
 */
export async function emitEvent(trx: Knex, businessId: string, code: string, data: object): Promise<string> {
  const id = randomUUID();
  await trx('outbox_events').insert({ id, business_id: businessId, code, data: JSON.stringify(data) });
  return id;
}

/**
 * Takes up to `limit` of business `businessId`'s pending events, oldest first, skipping
 * those another transaction holds (`FOR UPDATE SKIP LOCKED`: each pending event goes to one
 * relay), and returns their ids: they are no longer pending once `trx` commits, and pending
 * again if it rolls back. Names the business in every statement: on Citus it stays on one
 * node (docs/scale-out.md).
 */
export async function takePendingEvents(trx: Knex, businessId: string, limit: number): Promise<string[]> {
  const taken = await trx.raw<{ rows: { event_id: string }[] }>(
    `DELETE FROM outbox_pending p
      USING (SELECT created_at, event_id FROM outbox_pending WHERE business_id = ?
              ORDER BY created_at, event_id LIMIT ? FOR UPDATE SKIP LOCKED) t
      WHERE p.business_id = ? AND p.created_at = t.created_at AND p.event_id = t.event_id
      RETURNING p.event_id`,
    [businessId, limit, businessId],
  );
  return taken.rows.map((r) => r.event_id);
}

/**
 * The event outbox's backlog over `db`, as the metrics read it at scrape time: every
 * business's pending events (a read across businesses, docs/scale-out.md). Each number is
 * NaN while the database is unreachable, so that the other metrics are still served.
 */
export function outboxBacklog(db: Knex): OutboxBacklog {
  const read = async (select: string): Promise<number> => {
    try {
      const row = await acrossBusinesses(db, (trx) => trx('outbox_pending').first(trx.raw(`${select} AS v`)));
      return Number(row?.v ?? 0);
    } catch {
      return Number.NaN;
    }
  };
  return {
    events: () => read('count(*)::int'),
    oldestAgeSeconds: () => read('COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float'),
  };
}
