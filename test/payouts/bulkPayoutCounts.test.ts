/**
 * A bulk payout's counts per state on its row (`bulk_payouts.processing_count`,
 * `completed_count`, `failed_count`; src/db/migrations/024_baseline.ts): the CHECK
 * `bulk_payouts_counts_range` keeps them within what the batch accepted, whatever writes
 * them. How the counts move with the payouts: test/payouts/bulkPayouts.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { newBusiness } from '../support/fixtures.js';
import { running } from '../support/service.js';

describe('bulk payouts: counts per state on the batch row', () => {
  it('refuses counts below zero or beyond the accepted items', async () => {
    const db = running().db;
    const business = await newBusiness();
    const id = randomUUID();
    await db('bulk_payouts').insert({
      id, business_id: business.id, idempotency_key: randomUUID(), request_hash: 'h', item_count: 6, accepted_count: 5,
      processing_count: 1, completed_count: 2, failed_count: 1,
    });
    // Within the accepted five: still allowed.
    await db('bulk_payouts').where({ id }).update({ completed_count: 3 });
    for (const change of [{ completed_count: 4 }, { failed_count: -1 }, { processing_count: 6, completed_count: 0, failed_count: 0 }]) {
      const err = await db('bulk_payouts').where({ id }).update(change).then(() => null, (e: { code?: string; constraint?: string }) => e);
      expect(err, JSON.stringify(change)).to.include({ code: '23514', constraint: 'bulk_payouts_counts_range' });
    }
    expect(await db('bulk_payouts').where({ id }).first('processing_count', 'completed_count', 'failed_count')).to.deep.equal({
      processing_count: 1, completed_count: 3, failed_count: 1,
    });
  });
});
