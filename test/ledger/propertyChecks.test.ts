/**
 * The property checks themselves (test/support/property/): after a small clean run they
 * find nothing, and each seeded violation — a ledger corrupted inside a transaction that
 * is rolled back, or a run log that claims what did not happen — is reported by the
 * check meant for it. A check that could not fail would make the property test worthless.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import type { Knex } from 'knex';
import { ledgerInvariants } from '../support/ledgerInvariants.js';
import type { RunLog } from '../support/property/model.js';
import { outcomeViolations } from '../support/property/outcomes.js';
import { recordViolations } from '../support/property/records.js';
import { runProperty } from '../support/property/run.js';
import { Instances } from '../support/property/transport.js';
import { running } from '../support/service.js';

/** The invariants that report offenders while `corrupt` has changed the ledger (rolled back afterwards). */
async function flaggedAfter(log: RunLog, corrupt: (trx: Knex.Transaction, businessId: string) => Promise<void>): Promise<string[]> {
  const trx = await running().db.transaction();
  try {
    await corrupt(trx, log.businesses[0].id);
    return (await ledgerInvariants(trx, log.businesses.map((b) => b.id))).filter((r) => r.offenders.length).map((r) => r.name);
  } finally {
    await trx.rollback();
  }
}

/** Inserts a transaction and its two entries as given (no balance update, no rule checked). */
async function insertTransaction(
  trx: Knex.Transaction,
  t: { business: string; type: string; amount: string; debit: string; credit: string; original?: string; debitAfter: string; creditAfter: string },
): Promise<string> {
  const id = randomUUID();
  await trx('transactions').insert({
    id, reference: `TXNX${id.slice(0, 8)}`, business_id: t.business, type: t.type, status: 'SUCCESS', amount: t.amount, currency: 'SAR',
    debit_account_id: t.debit, credit_account_id: t.credit, original_transaction_id: t.original ?? null,
  });
  await trx('ledger_entries').insert([
    { business_id: t.business, transaction_id: id, account_id: t.debit, entry_number: await nextEntryNumber(trx, t.business, t.debit), amount: `-${t.amount}`, balance_after: t.debitAfter },
    { business_id: t.business, transaction_id: id, account_id: t.credit, entry_number: await nextEntryNumber(trx, t.business, t.credit), amount: t.amount, balance_after: t.creditAfter },
  ]);
  return id;
}

/** The number the next entry of `account` takes (its last entry's + 1). */
async function nextEntryNumber(trx: Knex.Transaction, business: string, account: string): Promise<number> {
  const row = await trx('ledger_entries').where({ business_id: business, account_id: account }).max<{ n: string | null }>('entry_number as n').first();
  return Number(row?.n ?? 0) + 1;
}

const rulesOf = (violations: { rule: string }[]): string[] => [...new Set(violations.map((v) => v.rule))];

describe('property checks catch seeded violations', function () {
  this.timeout(300_000);
  let log: RunLog;

  before(async () => {
    const instances = new Instances([running().url]);
    log = await runProperty(instances, { seed: 20_260_101, operations: 300, concurrency: 16, businesses: 2, walletsPerBusiness: 4, overdraftWallets: 1, deadlineMs: 240_000 });
  });

  it('find nothing after a clean run', async () => {
    expect((await ledgerInvariants(running().db, log.businesses.map((b) => b.id))).filter((r) => r.offenders.length)).to.deep.equal([]);
    expect(outcomeViolations(log)).to.deep.equal([]);
    expect((await recordViolations(running().db, log)).violations).to.deep.equal([]);
  });

  it('report a balance changed behind the ledger, an overdrawn wallet, a passed refund cap, a second reversal, an unbalanced transaction, a wrong running balance', async () => {
    const wallet = log.businesses[0].wallets.find((w) => !w.canOverdraft)!.id;
    expect(await flaggedAfter(log, async (trx) => void (await trx('accounts').where({ id: wallet }).increment('balance', 1)))).to.include.members(['balances match entries', 'businesses sum to zero']);

    const overdrawn = async (trx: Knex.Transaction, business: string) => {
      const op = await trx('accounts').where({ business_id: business, kind: 'OPERATIONAL' }).first();
      const w = await trx('accounts').where({ id: wallet }).first();
      const amount = new Decimal(w.balance).plus(1).toFixed(2);
      await insertTransaction(trx, { business, type: 'WITHDRAWAL', amount, debit: wallet, credit: op.id, debitAfter: '-1.00', creditAfter: op.balance });
    };
    expect(await flaggedAfter(log, overdrawn)).to.include('no forbidden overdraft');

    const ids = log.businesses.map((b) => b.id);
    const refunded = await running().db('transactions').whereIn('business_id', ids).where({ type: 'PAYOUT' }).where('refunded_amount', '>', 0).first();
    expect(refunded, 'the run refunded some payout').to.not.equal(undefined);
    const pastCap = (trx: Knex.Transaction) =>
      insertTransaction(trx, { business: refunded.business_id, type: 'REFUND', amount: refunded.amount, debit: refunded.credit_account_id, credit: refunded.debit_account_id, original: refunded.id, debitAfter: '0.00', creditAfter: '0.00' }).then(() => undefined);
    expect(await flaggedAfter(log, pastCap)).to.include('refund caps');

    const reversal = await running().db('transactions').whereIn('business_id', ids).where({ type: 'REVERSAL' }).first();
    expect(reversal, 'the run reversed something').to.not.equal(undefined);
    const again = (trx: Knex.Transaction) =>
      insertTransaction(trx, { business: reversal.business_id, type: 'REVERSAL', amount: reversal.amount, debit: reversal.debit_account_id, credit: reversal.credit_account_id, original: reversal.original_transaction_id, debitAfter: '0.00', creditAfter: '0.00' }).then(() => undefined);
    expect(await flaggedAfter(log, again)).to.include('single reversal');

    const unbalanced = (trx: Knex.Transaction) =>
      nextEntryNumber(trx, reversal.business_id, reversal.credit_account_id).then((entry_number) =>
        trx('ledger_entries').insert({ business_id: reversal.business_id, transaction_id: reversal.id, account_id: reversal.credit_account_id, entry_number, amount: '1.00', balance_after: '1.00' }),
      ).then(() => undefined);
    expect(await flaggedAfter(log, unbalanced)).to.include('balanced transactions');

    const wrongRunning = async (trx: Knex.Transaction, business: string) => {
      const op = await trx('accounts').where({ business_id: business, kind: 'OPERATIONAL' }).first();
      await insertTransaction(trx, { business, type: 'WITHDRAWAL', amount: '0.01', debit: wallet, credit: op.id, debitAfter: '987654.32', creditAfter: '987654.32' });
    };
    expect(await flaggedAfter(log, wrongRunning)).to.include('running balances');
  });

  it('report a lost acknowledged transaction, a 5xx, a refused request that moved money, two answers for one key, an unrequested transaction', async () => {
    const acked = (l: RunLog) => l.ops.flatMap((o) => o.attempts).filter((a) => a.status === 201 && !a.replayed);
    const lost = structuredClone(log);
    acked(lost)[5].id = randomUUID();
    expect(rulesOf((await recordViolations(running().db, lost)).violations)).to.include('every acknowledged transaction is stored');

    const failed = structuredClone(log);
    Object.assign(acked(failed)[7], { status: 500, error: '500: {"code":"INTERNAL_ERROR"}' });
    expect(rulesOf(outcomeViolations(failed))).to.include('every response documented, never a 5xx');

    const refused = structuredClone(log);
    const unkeyed = acked(refused).find((a) => !a.key)!;
    Object.assign(unkeyed, { status: 422, code: 'INSUFFICIENT_FUNDS', id: undefined });
    expect(rulesOf((await recordViolations(running().db, refused)).violations)).to.include('a refused request moves nothing');

    const twice = structuredClone(log);
    const replay = twice.ops.flatMap((o) => o.attempts).find((a) => a.replayed && a.status === 201)!;
    expect(replay, 'the run replayed a key').to.not.equal(undefined);
    replay.digest = 'another answer';
    expect(rulesOf(outcomeViolations(twice))).to.include('exactly-once idempotency: one answer per key and body');

    const unrequested = structuredClone(log);
    unrequested.ops = unrequested.ops.filter((o) => !o.attempts.some((a) => a.status === 201 && a.id === acked(log)[3].id));
    expect(rulesOf((await recordViolations(running().db, unrequested)).violations)).to.include('every transaction was asked for');
  });
});
