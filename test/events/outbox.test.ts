/**
 * The event outbox (src/events/): an event is recorded through its doors only (emitEvent in
 * TypeScript, event_emit and event_emit_set in PL/pgSQL), and is pending while it has a row
 * in `outbox_pending`, inserted by the trigger of `outbox_events`
 * (src/events/sql/outbox_event_pending.sql) in the producer's transaction, so that the event
 * and its pending row commit or roll back together. The relay's side: test/webhooks/.
 */
import { expect } from 'chai';
import { emitEvent } from '../../src/events/outbox.js';
import { newBusiness } from '../support/fixtures.js';
import { running } from '../support/service.js';

describe('event outbox: emitted events, pending in a table of their own', () => {
  it('makes every new event pending in the producer’s transaction, and rolls both back together', async () => {
    const db = running().db;
    const business = await newBusiness();
    let id = '';
    const rollback = new Error('rollback');
    const outcome = await db
      .transaction(async (trx) => {
        id = await emitEvent(trx, business.id, 'topup.complete', { amount: '1.00' });
        const event = await trx('outbox_events').where({ id }).first('code', 'data', 'data_version', 'created_at');
        expect(event).to.deep.include({ code: 'topup.complete', data: { amount: '1.00' }, data_version: 'v3' });
        expect(await trx('outbox_pending').where({ event_id: id }).select('created_at', 'business_id')).to.deep.equal([
          { created_at: event.created_at, business_id: business.id },
        ]);
        throw rollback;
      })
      .catch((err: unknown) => err);
    expect(outcome).to.equal(rollback);
    expect(id).to.match(/^[0-9a-f-]{36}$/);
    expect(await db('outbox_events').where({ id })).to.deep.equal([]);
    expect(await db('outbox_pending').where({ event_id: id })).to.deep.equal([]);
  });

  it('event_emit records one event with the column’s defaults or the version and time given; event_emit_set a batch in its order', async () => {
    const db = running().db;
    const business = await newBusiness();
    const at = '2026-01-02T03:04:05.678Z';
    await db.transaction(async (trx) => {
      const { rows } = await trx.raw(
        `SELECT event_emit(:b, 'topup.complete', '{"n": 1}') AS plain, event_emit(:b, 'topup.complete', '{"n": 2}', 'v4', :at) AS given,
                now() AS now`,
        { b: business.id, at },
      );
      const { plain, given } = rows[0];
      const events = await trx('outbox_events').whereIn('id', [plain, given]).select('id', 'data', 'data_version', 'created_at');
      const byId = new Map(events.map((e) => [e.id, e]));
      expect(byId.get(plain)).to.deep.include({ data: { n: 1 }, data_version: 'v3' });
      expect(byId.get(plain).created_at.getTime(), 'the transaction’s time').to.be.closeTo(rows[0].now.getTime(), 1);
      expect(byId.get(given)).to.deep.include({ data: { n: 2 }, data_version: 'v4' });
      expect(byId.get(given).created_at.toISOString()).to.equal(at);
      await trx.raw(`SELECT event_emit_set(?, ARRAY['payout.pending', 'payout.completed', 'payout.failed'], ARRAY['{"k": 1}', '{"k": 2}', '{"k": 3}']::jsonb[])`, [business.id]);
      await trx.raw('SELECT event_emit_set(?, NULL, NULL)', [business.id]);
      const batch = await trx('outbox_events').where({ business_id: business.id }).where('code', 'like', 'payout.%').orderByRaw("data->>'k'").select('code', 'data_version', 'created_at');
      expect(batch.map((e) => [e.code, e.data_version])).to.deep.equal([['payout.pending', 'v3'], ['payout.completed', 'v3'], ['payout.failed', 'v3']]);
      const times = batch.map((e) => e.created_at.getTime());
      expect(times, 'stamped by the clock in the batch’s order').to.deep.equal([...times].sort((x, y) => x - y));
      expect(await trx('outbox_pending').where({ business_id: business.id }).count<{ n: string }[]>({ n: '*' }), 'every event pending').to.deep.equal([{ n: '5' }]);
    });
  });
});
