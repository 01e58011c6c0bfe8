/**
 * The insert-only outbox (migration 022, src/webhooks/sql/outbox_event_pending.sql): an
 * event is pending while it has a row in `outbox_pending`. On a database of its own, the
 * test migrates to just before 022, leaves one event dispatched and one not, then runs
 * 022 and the SQL definitions, and checks what the relay will find.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { applySqlDefinitions } from '../../src/db/sqlFunctions.js';
import { migrateToJustBefore, migrationDatabase } from '../support/migrations.js';

describe('outbox: pending events in a table of their own (migration 022)', function () {
  this.timeout(120_000);
  const own = migrationDatabase('wallet_outbox');

  it('makes the events not yet dispatched pending, drops dispatched_at, and every new event is pending from its insert', async () => {
    const db = own.db();
    await migrateToJustBefore(db, '022_outbox_pending');
    const [sent, waiting] = [randomUUID(), randomUUID()];
    await db('outbox_events').insert([
      { id: sent, code: 'topup.complete', data: {}, created_at: '2026-01-01T00:00:00.000Z', dispatched_at: '2026-01-01T00:00:01.000Z' },
      { id: waiting, code: 'topup.complete', data: {}, created_at: '2026-01-01T00:00:02.000Z' },
    ]);

    await db.migrate.up();
    expect((await db('outbox_pending').select('event_id', 'created_at')).map((r) => [r.event_id, r.created_at.toISOString()])).to.deep.equal([
      [waiting, '2026-01-01T00:00:02.000Z'],
    ]);
    expect(await db.schema.hasColumn('outbox_events', 'dispatched_at')).to.equal(false);

    await db.migrate.latest();
    await applySqlDefinitions(db);
    const fresh = randomUUID();
    await db.transaction(async (trx) => {
      await trx('outbox_events').insert({ id: fresh, code: 'topup.complete', data: {} });
      // Pending in the producer's transaction, so committed together with the event.
      expect(await trx('outbox_pending').where({ event_id: fresh }).pluck('event_id')).to.deep.equal([fresh]);
    });
    expect((await db('outbox_pending').orderBy('created_at').pluck('event_id'))).to.deep.equal([waiting, fresh]);
  });
});
