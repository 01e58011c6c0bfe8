/**
 * Lock order under mixed money traffic from two instances: core payouts, bulk payouts,
 * payout completions (the background outcome step, run by the job workers of both
 * instances), card purchases and wallet transfers, all on the same few customers'
 * wallets at once. These are the operations whose row locks cross unless every lock
 * keeps the order of openapi/DESIGN.md: a payout's `INSERT INTO payouts` checks its
 * foreign key to the wallet's `accounts` row (FOR KEY SHARE) while the payout and
 * in-transit accounts are already locked, and a completion or a card purchase holds that
 * wallet row while it waits for one of them (with FOR UPDATE account locks: 51 deadlocks
 * in 320 operations).
 *
 * The test counts what the client sees (no answer ≥ 500, only the documented ones) and
 * what PostgreSQL saw: `pg_stat_database.deadlocks` of the test database, and each
 * instance's `db_transaction_retries_total{sqlstate="40P01"}`, must not move. A retry
 * would hide a deadlock from the client; only zero shows the locks are taken in one
 * order. Then every payout settles and the ledger invariants hold.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import type { RunningService } from '../../src/server.js';
import { issuedCard } from '../support/cards.js';
import { get, post, type ApiResponse } from '../support/client.js';
import { activeCustomer } from '../support/customers.js';
import { credit, newBusiness, topup } from '../support/fixtures.js';
import { assertLedgerConsistent } from '../support/ledgerInvariants.js';
import { bulkPayoutSettled, payoutReaching, topupPayoutAccount } from '../support/payouts.js';
import { extraServiceHooks, running } from '../support/service.js';

const OPERATIONS = Number(process.env.LOCK_ORDER_OPERATIONS ?? 160);
const CONCURRENCY = 16;
const CUSTOMERS = 4;

/** The deadlocks PostgreSQL has counted in the test database (its statistics lag up to a second). */
async function databaseDeadlocks(): Promise<number> {
  const db = running().db;
  await db.raw('SELECT pg_stat_clear_snapshot()');
  const { rows } = await db.raw('SELECT deadlocks::int AS n FROM pg_stat_database WHERE datname = current_database()');
  return rows[0].n;
}

/** `db_transaction_retries_total{sqlstate}` of the instance at `baseUrl` (0 when never counted). */
async function retries(baseUrl: string, sqlstate: string): Promise<number> {
  const text = (await get('/metrics', { baseUrl })).body as string;
  const line = text.split('\n').find((l) => l.startsWith(`db_transaction_retries_total{sqlstate="${sqlstate}"}`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('lock order: mixed payouts, completions, card purchases and transfers on shared wallets', function () {
  this.timeout(360_000);
  let extra: RunningService | undefined;
  extraServiceHooks({ payoutProcessingMs: 0 }, (s) => (extra = s));

  it(`answers ${OPERATIONS} concurrent operations from two instances with no deadlock and no 5xx`, async () => {
    const b = await newBusiness();
    await topup(b.token, '100000.00');
    await topupPayoutAccount(b, '100000.00');
    const customers: { id: string; mobile_number: string; wallet_id: string; card: { id: string } }[] = [];
    for (let i = 0; i < CUSTOMERS; i++) {
      const customer = await activeCustomer(b);
      const { card } = await issuedCard(b, {}, customer);
      await credit(b.token, customer.wallet_id, '1000.00');
      customers.push({ ...customer, card });
    }
    const urls = [running().url, extra!.url];
    await settle(1_200);
    const deadlocksBefore = await databaseDeadlocks();
    const retriesBefore = await Promise.all(urls.map((u) => retries(u, '40P01')));

    const pick = <T>(list: T[]): T => list[randomInt(list.length)];
    // Cents 00–12: the sandbox rail completes them (.13 and .14 fail, .98 stays PENDING).
    const amount = () => `${randomInt(1, 5)}.${String(randomInt(0, 13)).padStart(2, '0')}`;
    const kinds = ['payout', 'bulk', 'purchase', 'transfer'] as const;
    const answers: { kind: string; res: ApiResponse }[] = [];
    const payouts: string[] = [];
    const bulks: string[] = [];
    let next = 0;
    const worker = async (w: number) => {
      while (next < OPERATIONS) {
        const n = next++;
        const baseUrl = urls[(n + w) % 2];
        const kind = kinds[n % kinds.length];
        const customer = pick(customers);
        let res: ApiResponse;
        if (kind === 'payout') {
          res = await post('/payouts/', { payout_amount: amount(), payout_purpose: 'Cashback', mobileNumber: customer.mobile_number },
            { token: b.token, baseUrl, headers: { 'idempotency-key': randomUUID() } });
          if (res.status === 200) payouts.push(res.body.payout_id);
        } else if (kind === 'bulk') {
          const items = Array.from({ length: randomInt(2, 4) }, () => ({ payout_amount: amount(), customer_id: pick(customers).id }));
          res = await post('/bulk-payouts', { items }, { token: b.token, baseUrl, headers: { 'idempotency-key': randomUUID() } });
          if (res.status === 200) bulks.push(res.body.bulk_payout_id);
        } else if (kind === 'purchase') {
          res = await post('/testhelpers/cards/authorizations', { card_id: customer.card.id, amount: amount(), merchant_name: 'Corner Coffee' }, { token: b.token, baseUrl });
        } else {
          const to = pick(customers.filter((c) => c !== customer));
          res = await post('/cl/v1/transfers', { source_wallet_id: customer.wallet_id, destination_wallet_id: to.wallet_id, amount: amount() }, { token: b.token, baseUrl });
        }
        answers.push({ kind, res });
      }
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
    const elapsed = Date.now() - started;

    const serverErrors = answers.filter((a) => a.res.status >= 500).map((a) => `${a.kind} ${a.res.status} ${JSON.stringify(a.res.body)}`);
    const statuses = new Map<string, number>();
    for (const a of answers) statuses.set(`${a.kind} ${a.res.status}`, (statuses.get(`${a.kind} ${a.res.status}`) ?? 0) + 1);
    console.log(`      ${answers.length} operations in ${elapsed} ms: ${[...statuses].map(([k, v]) => `${k}×${v}`).join(', ')}`);
    expect(serverErrors.slice(0, 5), `${serverErrors.length} answers ≥ 500`).to.deep.equal([]);
    for (const a of answers) {
      const expected = { payout: [200], bulk: [200], purchase: [200], transfer: [201] }[a.kind]!;
      expect(expected, `${a.kind}: ${a.res.status} ${JSON.stringify(a.res.body)}`).to.include(a.res.status);
    }
    expect(answers.filter((a) => a.kind === 'purchase' && a.res.body.status === 'APPROVED').length, 'approved purchases').to.be.greaterThan(0);

    // One deadline for all: the job queue settles the payouts at its own pace.
    const deadline = Date.now() + 240_000;
    const left = () => Math.max(1_000, deadline - Date.now());
    for (const id of payouts) await payoutReaching(b, id, 'COMPLETED', left());
    for (const id of bulks) await bulkPayoutSettled(b, id, left());
    console.log(`      every payout final ${Date.now() - started - elapsed} ms after the last answer`);
    await settle(1_200);
    const deadlocks = (await databaseDeadlocks()) - deadlocksBefore;
    const retried = (await Promise.all(urls.map((u) => retries(u, '40P01')))).map((n, i) => n - retriesBefore[i]);
    console.log(`      deadlocks in PostgreSQL: ${deadlocks}; deadlock retries per instance: ${retried.join(', ')}`);
    expect(deadlocks, 'deadlocks PostgreSQL detected').to.equal(0);
    expect(retried, 'deadlock retries on each instance').to.deep.equal([0, 0]);

    await assertLedgerConsistent(running().db, b.id);
    const inTransit = await running().db('accounts').where({ business_id: b.id, kind: 'IN_TRANSIT' }).first('balance');
    expect(new Decimal(inTransit.balance).toFixed(2), 'nothing left in transit once every payout is final').to.equal('0.00');
  });
});
