/**
 * Payouts stepped set-wise (src/payouts/sql/payout_create_set.sql, payout_move_set.sql): a
 * bulk payout's items created, and a batch of payout moves applied, by a fixed number of
 * statements whatever their number, with the answers and the writes of the one-by-one path
 * (payout_create_item, payout_move): the same results, payouts, events, ledger transactions,
 * entries and balances, ids, references and times aside. Each comparison runs both paths
 * from the same committed state, each in a transaction of its own that is rolled back.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type pg from 'pg';
import { activeCustomer, startSession } from '../support/customers.js';
import { withNestedPlans } from '../support/nestedPlans.js';
import { payoutBusiness, type PayoutBusiness } from '../support/payouts.js';
import { running } from '../support/service.js';

/** Ids, references and times: what two runs of the same work may not share. */
const VOLATILE = new Set(['id', 'reference', 'created_at', 'transaction_id', 'payout_id', 'occurred_at', 'creation_transaction_id', 'outcome_transaction_id', 'original_transaction_id', 'updated_at']);

/** `value` with every volatile field (VOLATILE) replaced by whether it was present. */
function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, VOLATILE.has(k) ? v !== null && v !== undefined : stable(v)]));
  }
  return value;
}

/** What the transaction on `client` wrote for business `businessId`, stable (see `stable`) and in a fixed order. */
async function writes(client: pg.Client, businessId: string): Promise<Record<string, unknown[]>> {
  const mine = 'business_id = $1 AND xmin::text = pg_current_xact_id()::text';
  const q = async (sql: string) => stable((await client.query(sql, [businessId])).rows) as unknown[];
  return {
    payouts: await q(`SELECT customer_id, wallet_id, amount, currency, status, purpose, external_reference, failure_code, creation_transaction_id,
                             outcome_transaction_id FROM payouts WHERE ${mine} ORDER BY amount, status`),
    events: await q(`SELECT code, data FROM outbox_events WHERE ${mine} ORDER BY data->>'amount', code`),
    transactions: await q(`SELECT type, status, amount, currency, debit_account_id, credit_account_id, external_reference, notes, original_transaction_id
                             FROM transactions WHERE ${mine} ORDER BY amount, type`),
    entries: await q(`SELECT account_id, entry_number, amount, balance_after FROM ledger_entries WHERE ${mine} ORDER BY account_id, entry_number`),
    accounts: await q(`SELECT id AS account, balance, last_entry_number FROM accounts WHERE ${mine} ORDER BY id`),
  };
}

/**
 * Runs `work` on a connection of its own in a transaction that is rolled back: its result,
 * the writes, and how many statements it ran (nested ones included; not the foreign keys'
 * checks nor the triggers', which every row written runs whatever writes it).
 */
async function rolledBack(businessId: string, work: (client: pg.Client) => Promise<unknown>): Promise<{ result: unknown; writes: Record<string, unknown[]>; statements: number }> {
  const { result, plans } = await withNestedPlans(async (client) => {
    let ran = 0;
    client.on('notice', () => ran++);
    const result = await work(client);
    const before = ran;
    return { result, ran: before, writes: await writes(client, businessId) };
  });
  const ours = plans.slice(0, result.ran).filter((p) => !/Query Text: SELECT 1 FROM ONLY|NEW\./.test(p));
  return { result: result.result, writes: result.writes, statements: ours.length };
}

/** The items created set-wise (payout_create_batch) and one by one (payout_create_item, the balances held as the batch holds them). */
const createdSetWise = (businessId: string, items: object[]) => (client: pg.Client) =>
  client.query('SELECT payout_create_batch($1::uuid, $2::jsonb) AS r', [businessId, JSON.stringify(items)]).then((r) => r.rows[0].r);
const createdOneByOne = (businessId: string, items: object[]) => async (client: pg.Client) => {
  await client.query('SELECT ledger_hold_balances($1::uuid, payout_accounts($1::uuid))', [businessId]);
  const { rows } = await client.query(
    'SELECT jsonb_agg(payout_create_item($1::uuid, i.value) ORDER BY i.n) AS r FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY i(value, n)',
    [businessId, JSON.stringify(items)],
  );
  await client.query('SELECT ledger_release_balances($1::uuid)', [businessId]);
  return rows[0].r;
};

type Move = { payout_id: string; from: string[]; to: string; failure_code: string | null };

/** The moves applied set-wise (payout_move_batch) and one by one (payout_move each), after `prepare`. */
const movedSetWise = (businessId: string, moves: Move[], prepare: (c: pg.Client) => Promise<void>) => async (client: pg.Client) => {
  await prepare(client);
  return (await client.query('SELECT payout_move_batch($1::uuid, $2::jsonb) AS r', [businessId, JSON.stringify(moves)])).rows[0].r;
};
const movedOneByOne = (businessId: string, moves: Move[], prepare: (c: pg.Client) => Promise<void>) => async (client: pg.Client) => {
  await prepare(client);
  const results = [];
  for (const m of moves) {
    const { rows } = await client.query('SELECT payout_move($1::uuid, $2::uuid, $3::text[], $4, $5) AS r', [businessId, m.payout_id, m.from, m.to, m.failure_code]);
    results.push(rows[0].r);
  }
  return results;
};

describe('payouts stepped set-wise', function () {
  this.timeout(60_000);
  let pb: PayoutBusiness;
  let other: any;
  let onboarding: any;

  before(async () => {
    pb = await payoutBusiness('10000.00');
    other = await activeCustomer(pb.b);
    onboarding = await startSession(pb.b);
  });

  it("creates a bulk payout's items as one by one: each refusal in its words, each payout, its posting and event", async () => {
    const { customer } = pb;
    const id = pb.b.id;
    const items = [
      { payout_amount: '10.00', external_reference: 'set-0', customer_id: customer.id },
      { payout_amount: '1.005', customer_id: customer.id },
      { payout_amount: '5.00', mobileNumber: '966500000001' },
      { payout_amount: '5.00', customer_id: onboarding.customer_id },
      { payout_amount: '5.00', customer_id: customer.id, mobileNumber: customer.mobile_number },
      { payout_amount: '7.25', payout_purpose: 'Refund', walletAccountNumber: other.wallet_account_number },
      { payout_amount: '3.10', mobileNumber: customer.mobile_number },
      { payout_amount: '0.00', customer_id: customer.id },
      { payout_amount: '2.00', customer_id: randomUUID() },
    ];
    const set = await rolledBack(id, createdSetWise(id, items));
    const single = await rolledBack(id, createdOneByOne(id, items));
    expect((set.result as any[]).map((r) => r.refusal?.code ?? 'payout')).to.deep.equal([
      'payout', 'VALIDATION_ERROR', 'CUSTOMER_NOT_FOUND', 'CUSTOMER_NOT_ACTIVE', 'VALIDATION_ERROR', 'payout', 'payout', 'VALIDATION_ERROR', 'CUSTOMER_NOT_FOUND',
    ]);
    expect(stable(set.result)).to.deep.equal(stable(single.result));
    expect(set.writes).to.deep.equal(single.writes);
    expect(set.writes.payouts).to.have.length(3);
    expect(set.writes.events).to.have.length(3);
    expect(set.writes.entries).to.have.length(6);
  });

  it('refuses a receiver missing from an enforced whitelist, as one by one', async () => {
    const id = pb.b.id;
    const items = [
      { payout_amount: '1.00', customer_id: pb.customer.id },
      { payout_amount: '2.00', customer_id: other.id },
    ];
    const enforce = (work: (c: pg.Client) => Promise<unknown>) => async (client: pg.Client) => {
      await client.query(
        `INSERT INTO payout_settings (business_id, whitelist_enforced) VALUES ($1, true) ON CONFLICT (business_id) DO UPDATE SET whitelist_enforced = true`,
        [id],
      );
      await client.query('INSERT INTO payout_whitelist_entries (id, business_id, customer_id) VALUES (gen_random_uuid(), $1, $2)', [id, other.id]);
      return work(client);
    };
    const set = await rolledBack(id, enforce(createdSetWise(id, items)));
    const single = await rolledBack(id, enforce(createdOneByOne(id, items)));
    expect((set.result as any[]).map((r) => r.refusal?.code ?? 'payout')).to.deep.equal(['PAYOUT_RECEIVER_NOT_WHITELISTED', 'payout']);
    expect(stable(set.result)).to.deep.equal(stable(single.result));
    expect(set.writes).to.deep.equal(single.writes);
  });

  it('creates 5 items and 60 with the same statements but for one lookup of each item\'s receiver', async () => {
    const id = pb.b.id;
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ payout_amount: `${1 + (i % 5)}.00`, customer_id: i % 2 ? other.id : pb.customer.id }));
    const five = await rolledBack(id, createdSetWise(id, items(5)));
    const sixty = await rolledBack(id, createdSetWise(id, items(60)));
    expect((sixty.result as any[]).every((r) => r.payout)).to.equal(true);
    expect(sixty.writes.payouts).to.have.length(60);
    // customer_by_identifier, one index lookup per item; every other statement once per batch.
    expect(sixty.statements - five.statements).to.equal(55);
  });

  it('leaves the items to the one-by-one path when the payout account runs out part-way: the same answers', async () => {
    const id = pb.b.id;
    const { rows } = await running().db.raw("SELECT balance FROM accounts WHERE business_id = ? AND kind = 'PAYOUT'", [id]);
    const balance = Number(rows[0].balance);
    const items = [
      { payout_amount: '1.00', customer_id: pb.customer.id },
      { payout_amount: (balance - 0.5).toFixed(2), customer_id: other.id },
      { payout_amount: '0.50', customer_id: pb.customer.id },
    ];
    const set = await rolledBack(id, createdSetWise(id, items));
    expect((set.result as any[]).map((r) => r.refusal?.code ?? 'payout')).to.deep.equal(['payout', 'INSUFFICIENT_FUNDS', 'payout']);
    const single = await rolledBack(id, createdOneByOne(id, items));
    expect(stable(set.result)).to.deep.equal(stable(single.result));
    expect(set.writes).to.deep.equal(single.writes);
  });

  it('applies a batch of moves as one by one: submissions, completions, a failure, a receiver gone, refusals', async () => {
    const id = pb.b.id;
    // Six payouts committed (no job is sent for them: they move only as this test moves them), four of them submitted.
    const made = await running().db.raw('SELECT payout_create_batch(?::uuid, ?::jsonb) AS r', [
      id,
      JSON.stringify([1, 2, 3, 4, 5, 6].map((n) => ({ payout_amount: `${n}.11`, external_reference: `move-${n}`, customer_id: n === 4 ? other.id : pb.customer.id }))),
    ]);
    const ids: string[] = made.rows[0].r.map((r: any) => r.payout.id);
    const step = (payoutId: string, from: string[], to: string, failure_code: string | null = null): Move => ({ payout_id: payoutId, from, to, failure_code });
    const submitted = await running().db.raw('SELECT payout_move_batch(?::uuid, ?::jsonb) AS r', [id, JSON.stringify(ids.slice(1, 5).map((p) => step(p, ['PENDING'], 'PROCESSING')))]);
    expect(submitted.rows[0].r.map((r: any) => r.payout.status)).to.deep.equal(['PROCESSING', 'PROCESSING', 'PROCESSING', 'PROCESSING']);
    const moves = [
      step(ids[0], ['PENDING'], 'PROCESSING'),
      step(ids[1], ['PROCESSING'], 'COMPLETED'),
      step(ids[2], ['PROCESSING'], 'FAILED', 'REJECTED_BY_BANK'),
      step(ids[3], ['PROCESSING'], 'COMPLETED'),
      step(ids[5], ['PROCESSING'], 'COMPLETED'),
      step(randomUUID(), ['PROCESSING'], 'COMPLETED'),
      step(ids[4], ['PROCESSING'], 'COMPLETED'),
    ];
    // The fourth payout's receiver is no longer ACTIVE: its completion fails, RECEIVER_NOT_ACTIVE.
    const blocked = async (client: pg.Client) => void (await client.query("UPDATE accounts SET status = 'BLOCKED' WHERE id = $1 AND business_id = $2", [other.wallet_id, id]));
    const set = await rolledBack(id, movedSetWise(id, moves, blocked));
    const single = await rolledBack(id, movedOneByOne(id, moves, blocked));
    expect((set.result as any[]).map((r) => r.refusal?.code ?? r.payout.status)).to.deep.equal([
      'PROCESSING', 'COMPLETED', 'FAILED', 'FAILED', 'PAYOUT_STATUS_NOT_ALLOWED', 'PAYOUT_NOT_FOUND', 'COMPLETED',
    ]);
    expect(set.result).to.deep.equal(single.result);
    expect(set.writes).to.deep.equal(single.writes);
    expect(set.writes.payouts.map((p: any) => [p.status, p.failure_code])).to.have.deep.members([
      ['PROCESSING', null], ['COMPLETED', null], ['FAILED', 'REJECTED_BY_BANK'], ['FAILED', 'RECEIVER_NOT_ACTIVE'], ['COMPLETED', null],
    ]);
    expect(set.writes.transactions.map((t: any) => [t.type, t.original_transaction_id])).to.have.deep.members([
      ['CUSTOMER_PAYOUT_COMPLETION', true], ['CUSTOMER_PAYOUT_RETURN', true], ['CUSTOMER_PAYOUT_RETURN', true], ['CUSTOMER_PAYOUT_COMPLETION', true],
    ]);
  });

  it('moves 5 payouts and 60 with the same statements', async () => {
    const id = pb.b.id;
    const made = await running().db.raw('SELECT payout_create_batch(?::uuid, ?::jsonb) AS r', [
      id,
      JSON.stringify(Array.from({ length: 60 }, () => ({ payout_amount: '0.10', customer_id: pb.customer.id }))),
    ]);
    const ids: string[] = made.rows[0].r.map((r: any) => r.payout.id);
    const moves = (n: number, from: string, to: string) => ids.slice(0, n).map((p) => ({ payout_id: p, from: [from], to, failure_code: null }));
    const submitted = async (n: number) => rolledBack(id, movedSetWise(id, moves(n, 'PENDING', 'PROCESSING'), async () => undefined));
    const [five, sixty] = [await submitted(5), await submitted(60)];
    expect(sixty.writes.events).to.have.length(60);
    expect(sixty.statements).to.equal(five.statements);
    // Completions, which post and check each receiver: as many statements too.
    await running().db.raw('SELECT payout_move_batch(?::uuid, ?::jsonb)', [id, JSON.stringify(moves(60, 'PENDING', 'PROCESSING'))]);
    const completed = async (n: number) => rolledBack(id, movedSetWise(id, moves(n, 'PROCESSING', 'COMPLETED'), async () => undefined));
    const [fiveDone, sixtyDone] = [await completed(5), await completed(60)];
    expect(sixtyDone.writes.transactions).to.have.length(60);
    expect(sixtyDone.statements).to.equal(fiveDone.statements);
  });
});
