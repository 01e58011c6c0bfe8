/**
 * Set-based batch posting (src/ledger/sql/ledger_move_set.sql): a batch whose movements are
 * all posted, under new Idempotency-Keys, runs the same number of statements whatever its
 * size; each movement keeps its own transaction, entries with running balances in item
 * order, and key; and the same batch with one refused movement is posted movement by
 * movement, the refusal answered alone. Statements are counted by auto_explain's nested
 * plans on the test's own connection (the foreign keys' checks and the triggers' left out:
 * each row inserted runs them, whatever inserts it).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { get } from '../support/client.js';
import { assertLedgerConsistent } from '../support/ledgerInvariants.js';
import { newBusiness, newWallet, topup, type TestBusiness } from '../support/fixtures.js';
import { withNestedPlans } from '../support/nestedPlans.js';
import { running } from '../support/service.js';

/** Posts `items` with ledger_move_batch on a connection of its own: its results and the statements it ran. */
async function postBatch(b: TestBusiness, items: object[]): Promise<{ results: any[]; statements: number }> {
  const { result, plans } = await withNestedPlans(
    async (client) => (await client.query('SELECT ledger_move_batch($1::uuid, $2::jsonb) AS results', [b.id, JSON.stringify(items)])).rows[0].results,
    { commit: true },
  );
  // Ours only: not the foreign keys' checks nor the balanced-transaction trigger, which every
  // row inserted runs whatever inserts it.
  const ours = plans.filter((p) => !/Query Text: SELECT 1 FROM ONLY|NEW\./.test(p));
  return { results: result, statements: ours.length };
}

const fund = (b: TestBusiness, walletId: string, amount: string) => ({
  type: 'FUND',
  request: { wallet_id: walletId, amount },
  key: [b.id, randomUUID(), randomUUID(), 60, 60, {}],
});

describe('set-based batch posting', () => {
  let b: TestBusiness;
  let wallets: { id: string; account_number: string }[];

  before(async () => {
    b = await newBusiness();
    await topup(b.token, '100000.00');
    wallets = [];
    for (let i = 0; i < 4; i++) wallets.push(await newWallet(b.token));
  });

  it('posts a batch of 5 and a batch of 60 with the same number of statements', async () => {
    const small = await postBatch(b, Array.from({ length: 5 }, (_, i) => fund(b, wallets[i % 4].id, '1.00')));
    const large = await postBatch(b, Array.from({ length: 60 }, (_, i) => fund(b, wallets[i % 4].id, '1.00')));
    expect(small.results.every((r) => r.posting), JSON.stringify(small.results[0])).to.equal(true);
    expect(large.results.every((r) => r.posting)).to.equal(true);
    expect(large.statements, 'statements of 60 against 5').to.equal(small.statements);
  });

  it('gives each movement its own transaction and entries, the running balances in item order', async () => {
    const before = (await get(`/cl/v1/wallets/${wallets[0].id}`, { token: b.token })).body.balance;
    const items = [fund(b, wallets[0].id, '2.00'), fund(b, wallets[1].id, '3.00'), fund(b, wallets[0].id, '5.00')];
    const { results } = await postBatch(b, items);
    const postings = results.map((r) => r.posting);
    expect(new Set(postings.map((p) => p.id)).size).to.equal(3);
    const credits = postings.map((p) => p.entries[1]);
    expect(credits[0].balance_after).to.equal((Number(before) + 2).toFixed(2));
    expect(credits[2].balance_after).to.equal((Number(before) + 7).toFixed(2));
    const debits = postings.map((p) => Number(p.entries[0].balance_after));
    expect(debits[1]).to.equal(debits[0] - 3);
    expect(debits[2]).to.equal(debits[1] - 5);
    const listed = await get(`/cl/v1/wallets/${wallets[0].id}/transactions?limit=2`, { token: b.token });
    expect(listed.body.data.map((t: any) => t.id)).to.have.members([postings[2].id, postings[0].id]);
    expect((await get(`/cl/v1/wallets/${wallets[0].id}`, { token: b.token })).body.balance).to.equal((Number(before) + 7).toFixed(2));
  });

  it("keeps each movement's key: the same batch again replays every posting exactly as it was answered", async () => {
    const items = Array.from({ length: 6 }, (_, i) => fund(b, wallets[i % 4].id, `${i + 1}.25`));
    const first = await postBatch(b, items);
    const again = await postBatch(b, items);
    expect(first.results.every((r) => r.posting)).to.equal(true);
    // A key already used: the batch is posted item by item, each item a replay of its key.
    const replayed = again.results.map((r) => r.held?.response?.posting);
    expect(replayed).to.deep.equal(first.results.map((r) => r.posting));
  });

  it('posts transfers that debit and credit one wallet in one batch, each balance after in item order', async () => {
    const [w0, w1, w2] = wallets;
    const balance = async (id: string) => (await get(`/cl/v1/wallets/${id}`, { token: b.token })).body.balance as string;
    const before = await Promise.all([w0, w1, w2].map((w) => balance(w.id)));
    const transfer = (from: string, to: string, amount: string) => ({
      type: 'TRANSFER',
      request: { source_wallet_id: from, destination_wallet_id: to, amount },
      key: null,
    });
    const items = [transfer(w0.id, w1.id, '10.00'), transfer(w1.id, w2.id, '4.00'), transfer(w2.id, w0.id, '1.00'), transfer(w0.id, w2.id, '2.00')];
    const { results, statements } = await postBatch(b, items);
    expect(results.every((r) => r.entries), JSON.stringify(results[0])).to.equal(true);
    expect(statements, 'set-wise: as many statements as a batch of funds without keys').to.be.lessThan(20);
    const cents = (v: string) => Math.round(Number(v) * 100);
    const [b0, b1, b2] = before.map(cents);
    expect(results.map((r) => r.entries.map((e: { balance_after: string }) => cents(e.balance_after)))).to.deep.equal([
      [b0 - 1000, b1 + 1000],
      [b1 + 1000 - 400, b2 + 400],
      [b2 + 400 - 100, b0 - 1000 + 100],
      [b0 - 1000 + 100 - 200, b2 + 400 - 100 + 200],
    ]);
    const after = await Promise.all([w0, w1, w2].map((w) => balance(w.id)));
    expect(after.map(cents)).to.deep.equal([b0 - 1100, b1 + 600, b2 + 500]);
    const { rows } = await running().db.raw(
      `SELECT e.account_id, e.entry_number, a.last_entry_number FROM ledger_entries e JOIN accounts a ON a.id = e.account_id AND a.business_id = e.business_id
        WHERE e.business_id = ? AND e.transaction_id = ANY(?::uuid[])`,
      [b.id, results.map((r) => r.id)],
    );
    const numbers = new Map<string, number[]>();
    for (const r of rows) numbers.set(r.account_id, [...(numbers.get(r.account_id) ?? []), Number(r.entry_number)]);
    for (const r of rows) {
      const own = numbers.get(r.account_id)!.sort((x, y) => x - y);
      expect(own.at(-1), "an account's last entry number is its newest entry's").to.equal(Number(r.last_entry_number));
      expect(own, 'numbers follow each other').to.deep.equal(own.map((_, i) => own[0] + i));
    }
  });

  it('posts a batch with a refused movement one by one: the refusal alone, the others posted, statements by item', async () => {
    const closedWallet = await newWallet(b.token);
    const items = [fund(b, wallets[2].id, '1.00'), fund(b, randomUUID(), '1.00'), fund(b, wallets[3].id, '1.00')];
    const { results } = await postBatch(b, items);
    expect(results[0]).to.have.property('posting');
    expect(results[1].refusal.code).to.equal('WALLET_NOT_FOUND');
    expect(results[2]).to.have.property('posting');
    expect(closedWallet.id).to.be.a('string');
  });

  describe("the business's own accounts, locked last", () => {
    const clients: pg.Client[] = [];
    const connect = async () => {
      const c = new pg.Client({ connectionString: running().databaseUrl });
      await c.connect();
      clients.push(c);
      return c;
    };
    afterEach(async () => {
      await Promise.all(clients.splice(0).map((c) => c.end().catch(() => undefined)));
    });
    const batch = (c: pg.Client, business: TestBusiness, items: object[]) =>
      c.query('SELECT ledger_move_batch($1::uuid, $2::jsonb) AS results', [business.id, JSON.stringify(items)]);
    /** Resolves once the session `pid` waits for a lock. */
    const waitingOnLock = async (pid: number) => {
      for (let i = 0; i < 200; i++) {
        const { rows } = await running().db.raw('SELECT wait_event_type FROM pg_stat_activity WHERE pid = ?', [pid]);
        if (rows[0]?.wait_event_type === 'Lock') return;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`session ${pid} never waited for a lock`);
    };
    const operational = async (business: TestBusiness) =>
      (await running().db.raw("SELECT id, balance, last_entry_number FROM accounts WHERE business_id = ? AND kind = 'OPERATIONAL'", [business.id])).rows[0];

    it("plans a batch and locks its wallets while another batch holds the operational account, then posts after that batch's entries", async () => {
      const [holder, waiter, probe] = [await connect(), await connect(), await connect()];
      const opBefore = await operational(b);
      await holder.query('BEGIN');
      await batch(holder, b, [fund(b, wallets[0].id, '1.00'), fund(b, wallets[1].id, '1.00')]);
      const { rows } = await waiter.query('SELECT pg_backend_pid() AS pid');
      const pending = batch(waiter, b, [fund(b, wallets[2].id, '2.00'), fund(b, wallets[3].id, '3.00')]);
      await waitingOnLock(rows[0].pid);
      // Its wallets are already held: they were locked before the operational account.
      for (const w of [wallets[2].id, wallets[3].id]) {
        const tried = await probe.query('SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE NOWAIT', [w]).then(
          () => 'locked',
          (err: { code?: string }) => err.code,
        );
        expect(tried, `wallet ${w} while the batch waits`).to.equal('55P03');
      }
      await holder.query('COMMIT');
      const results = (await pending).rows[0].results;
      const debits = results.map((r: any) => r.posting.entries[0]);
      const cents = (v: string) => Math.round(Number(v) * 100);
      expect(debits.map((e: any) => cents(e.balance_after)), 'the operational balance after each, following the other batch').to.deep.equal([
        cents(opBefore.balance) - 200 - 200,
        cents(opBefore.balance) - 200 - 500,
      ]);
      const opAfter = await operational(b);
      expect(cents(opAfter.balance)).to.equal(cents(opBefore.balance) - 700);
      expect(Number(opAfter.last_entry_number)).to.equal(Number(opBefore.last_entry_number) + 4);
      await assertLedgerConsistent(running().db, b.id);
    });

    it('refuses to post on a balance that another batch spent meanwhile: a serialization failure, nothing written, then the refusal', async () => {
      const small = await newBusiness();
      await topup(small.token, '100.00');
      const [w0, w1] = [await newWallet(small.token), await newWallet(small.token)];
      const [holder, waiter] = [await connect(), await connect()];
      await holder.query('BEGIN');
      await batch(holder, small, [fund(small, w0.id, '45.00'), fund(small, w0.id, '50.00')]);
      const { rows } = await waiter.query('SELECT pg_backend_pid() AS pid');
      const late = [fund(small, w1.id, '4.00'), fund(small, w1.id, '6.00')];
      const pending = batch(waiter, small, late).then(
        () => 'posted',
        (err: { code?: string }) => err.code,
      );
      await waitingOnLock(rows[0].pid);
      await holder.query('COMMIT');
      expect(await pending, 'planned on 100.00, 5.00 left once locked').to.equal('40001');
      expect((await get(`/cl/v1/wallets/${w1.id}`, { token: small.token })).body.balance).to.equal('0.00');
      // Posted again (as the service retries it), each movement is answered on its own.
      const again = (await batch(waiter, small, late)).rows[0].results;
      expect(again[0]).to.have.property('posting');
      expect(again[1].refusal.code).to.equal('INSUFFICIENT_FUNDS');
      await assertLedgerConsistent(running().db, small.id);
    });
  });
});
