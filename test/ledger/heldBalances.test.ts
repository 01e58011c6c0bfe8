/**
 * Held balances (src/ledger/sql/ledger_hold_balances.sql): inside a batch, the balances of
 * the business's own accounts are held in the transaction and their rows written once, at
 * ledger_release_balances. These tests drive the SQL functions directly on the service's
 * database, in transactions of their own, and check what the batches rely on: every entry
 * still carries its balance after, a subtransaction rolled back takes its change to a held
 * balance with it, and a transaction that still holds balances cannot commit.
 */
import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import type { Knex } from 'knex';
import { get } from '../support/client.js';
import { newBusiness, topup, type TestBusiness } from '../support/fixtures.js';
import { assertLedgerConsistent } from '../support/ledgerInvariants.js';
import { running } from '../support/service.js';

/** The business's own accounts (not wallets), by kind: id and balance as the table has them. */
async function ownAccounts(db: Knex, businessId: string): Promise<Record<string, { id: string; balance: string }>> {
  const rows = await db('accounts').where({ business_id: businessId }).whereNot({ kind: 'WALLET' }).select('id', 'kind', 'balance');
  return Object.fromEntries(rows.map((r) => [r.kind, { id: r.id, balance: r.balance }]));
}

/** Holds the business's own accounts' balances in `trx`. */
const hold = (trx: Knex.Transaction, businessId: string) =>
  trx.raw("SELECT ledger_hold_balances(?::uuid, ARRAY(SELECT id FROM accounts WHERE business_id = ?::uuid AND kind <> 'WALLET'))", [businessId, businessId]);

/** A top-up of `amount` (settlement → operational) posted in `trx`: the posting's JSON. */
async function postTopup(trx: Knex.Transaction, businessId: string, amount: string): Promise<any> {
  const { rows } = await trx.raw("SELECT ledger_post(?::uuid, 'TOPUP', 'SETTLEMENT', NULL, 'OPERATIONAL', NULL, ?, NULL, NULL, NULL) AS p", [businessId, amount]);
  expect(rows[0].p.refusal, JSON.stringify(rows[0].p)).to.equal(undefined);
  return rows[0].p;
}

const entryCount = async (db: Knex, businessId: string) => Number((await db('ledger_entries').where({ business_id: businessId }).count({ n: '*' }))[0].n);

describe('held balances: a batch writes each of its hot rows once', function () {
  this.timeout(60_000);
  let b: TestBusiness;

  beforeEach(async () => {
    b = await newBusiness();
    await topup(b.token, '100.00');
  });

  it('posts against the held balances (each entry with its balance after) and writes the rows once, at release', async () => {
    const db = running().db;
    const before = await ownAccounts(db, b.id);
    expect(before.OPERATIONAL.balance).to.equal('100.00');
    await db.transaction(async (trx) => {
      await hold(trx, b.id);
      const postings = [];
      for (const amount of ['1.00', '2.50', '3.25']) postings.push(await postTopup(trx, b.id, amount));
      // Each posting's balance after follows the one before it, although the rows are untouched.
      const afters = postings.map((p) => p.entries.find((e: any) => e.account_number === b.operationalAccountNumber).balance_after);
      expect(afters).to.deep.equal(['101.00', '103.50', '106.75']);
      expect((await ownAccounts(trx, b.id)).OPERATIONAL.balance).to.equal('100.00');
      await trx.raw('SELECT ledger_release_balances(?::uuid)', [b.id]);
      const during = await ownAccounts(trx, b.id);
      expect(during.OPERATIONAL.balance).to.equal('106.75');
      expect(during.SETTLEMENT.balance).to.equal(new Decimal(before.SETTLEMENT.balance).minus('6.75').toFixed(2));
      // Released: a posting after it updates the rows again, as outside any batch.
      await postTopup(trx, b.id, '0.25');
      expect((await ownAccounts(trx, b.id)).OPERATIONAL.balance).to.equal('107.00');
    });
    expect((await get(`/cl/v1/businesses/${b.id}`, { token: b.token })).body.operational_account.balance).to.equal('107.00');
    await assertLedgerConsistent(db, b.id);
  });

  it('refuses to commit a transaction that still holds balances, and nothing of it is kept', async () => {
    const db = running().db;
    const entries = await entryCount(db, b.id);
    let error: Error | undefined;
    try {
      await db.transaction(async (trx) => {
        await hold(trx, b.id);
        await postTopup(trx, b.id, '5.00');
      });
    } catch (err) {
      error = err as Error;
    }
    expect(error?.message).to.match(/balances are still held at commit/);
    expect(await entryCount(db, b.id)).to.equal(entries);
    expect((await ownAccounts(db, b.id)).OPERATIONAL.balance).to.equal('100.00');
    await assertLedgerConsistent(db, b.id);
  });

  it('a subtransaction rolled back takes its change to a held balance with it', async () => {
    const db = running().db;
    await db.transaction(async (trx) => {
      await hold(trx, b.id);
      await postTopup(trx, b.id, '1.00');
      await trx.raw('SAVEPOINT item');
      await postTopup(trx, b.id, '40.00');
      await trx.raw('ROLLBACK TO SAVEPOINT item');
      const last = await postTopup(trx, b.id, '2.00');
      expect(last.entries.find((e: any) => e.account_number === b.operationalAccountNumber).balance_after).to.equal('103.00');
      await trx.raw('SELECT ledger_release_balances(?::uuid)', [b.id]);
    });
    expect((await ownAccounts(db, b.id)).OPERATIONAL.balance).to.equal('103.00');
    await assertLedgerConsistent(db, b.id);
  });

  it('does not nest: holding twice in one transaction raises', async () => {
    const db = running().db;
    let error: Error | undefined;
    try {
      await db.transaction(async (trx) => {
        await hold(trx, b.id);
        await hold(trx, b.id);
      });
    } catch (err) {
      error = err as Error;
    }
    expect(error?.message).to.match(/balances are already held in this transaction/);
  });
});
