/**
 * The insert-only outbox: an event is pending while it has a row in `outbox_pending`,
 * inserted by the trigger of `outbox_events` (src/events/sql/outbox_event_pending.sql)
 * in the producer's transaction, so that the event and its pending row commit or roll
 * back together. The relay's side: test/webhooks/.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { newBusiness } from '../support/fixtures.js';
import { running } from '../support/service.js';

describe('outbox: pending events in a table of their own', () => {
  it('makes every new event pending in the producer’s transaction, and rolls both back together', async () => {
    const db = running().db;
    const business = await newBusiness();
    const id = randomUUID();
    const rollback = new Error('rollback');
    const outcome = await db
      .transaction(async (trx) => {
        const [event] = await trx('outbox_events').insert({ id, business_id: business.id, code: 'topup.complete', data: {} }).returning(['created_at']);
        expect(await trx('outbox_pending').where({ event_id: id }).select('created_at', 'business_id')).to.deep.equal([
          { created_at: event.created_at, business_id: business.id },
        ]);
        throw rollback;
      })
      .catch((err: unknown) => err);
    expect(outcome).to.equal(rollback);
    expect(await db('outbox_events').where({ id })).to.deep.equal([]);
    expect(await db('outbox_pending').where({ event_id: id })).to.deep.equal([]);
  });
});
