/**
 * A bulk payout's counts per state on its row (migration 023): on a database of its own,
 * the test migrates to just before 023, leaves two bulk payouts whose payouts are in every
 * state (and items rejected), runs 023, and checks the counts it found and the CHECK that
 * keeps them within what the batch accepted. How the counts then move with the payouts:
 * test/payouts/bulkPayouts.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { migrateToJustBefore, migrationDatabase } from '../support/migrations.js';

describe('bulk payouts: counts per state on the batch row (migration 023)', function () {
  this.timeout(120_000);
  const own = migrationDatabase('wallet_counts');

  it('counts the payouts of the bulk payouts made before it, and refuses counts beyond the accepted items', async () => {
    const db = own.db();
    await migrateToJustBefore(db, '023_bulk_payout_counts');
    const business = randomUUID();
    const [wallet, payoutAccount, customer] = [randomUUID(), randomUUID(), randomUUID()];
    await db('businesses').insert({ id: business, name: 'Counts', currency: 'SAR' });
    await db('accounts').insert([
      { id: wallet, business_id: business, kind: 'WALLET', account_number: '100000000001', currency: 'SAR' },
      { id: payoutAccount, business_id: business, kind: 'PAYOUT', account_number: '100000000002', currency: 'SAR' },
    ]);
    await db('customers').insert({ id: customer, business_id: business, status: 'ACTIVE', mobile_number: '966500000000', locale: 'en', wallet_id: wallet });
    const states = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'COMPLETED'];
    const payouts = states.map(() => randomUUID());
    await db('transactions').insert(payouts.map((_, i) => ({
      id: payouts[i], reference: `TXN00000000000${i}`, business_id: business, type: 'CUSTOMER_PAYOUT', status: 'SUCCESS',
      amount: '1.00', currency: 'SAR', debit_account_id: payoutAccount, credit_account_id: wallet,
    })));
    await db('payouts').insert(states.map((status, i) => ({
      id: payouts[i], business_id: business, customer_id: customer, wallet_id: wallet, amount: '1.00', currency: 'SAR', status, creation_transaction_id: payouts[i],
    })));
    const [counted, rejectedOnly] = [randomUUID(), randomUUID()];
    await db('bulk_payouts').insert([
      { id: counted, business_id: business, idempotency_key: 'a', request_hash: 'a', item_count: 6, accepted_count: 5 },
      { id: rejectedOnly, business_id: business, idempotency_key: 'b', request_hash: 'b', item_count: 1, accepted_count: 0 },
    ]);
    const item = (bulk: string, item_index: number, payout_id: string | null) => ({ id: randomUUID(), business_id: business, bulk_payout_id: bulk, item_index, currency: 'SAR', payout_id, rejection_code: payout_id ? null : 'CUSTOMER_NOT_FOUND' });
    await db('bulk_payout_items').insert([...payouts.map((p, i) => item(counted, i, p)), item(counted, 5, null), item(rejectedOnly, 0, null)]);

    await db.migrate.up();
    const rows = await db('bulk_payouts').orderBy('item_count', 'desc').select('processing_count', 'completed_count', 'failed_count');
    expect(rows).to.deep.equal([
      { processing_count: 1, completed_count: 2, failed_count: 1 },
      { processing_count: 0, completed_count: 0, failed_count: 0 },
    ]);
    for (const change of [{ completed_count: 4 }, { failed_count: -1 }]) {
      const err = await db('bulk_payouts').where({ id: counted }).update(change).then(() => null, (e: { code?: string; constraint?: string }) => e);
      expect(err, JSON.stringify(change)).to.include({ code: '23514', constraint: 'bulk_payouts_counts_range' });
    }
  });
});
