import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import { get, post } from '../support/client.js';
import { credit, fundedWallet, newBusiness, newWallet, topup, type TestBusiness } from '../support/fixtures.js';
import { running } from '../support/service.js';
import { requestHash } from '../../src/kernel/idempotency/idempotency.js';
import { expectProblem } from '../support/assertions.js';
import { assertLedgerConsistent as assertLedger } from '../support/ledgerInvariants.js';

/** Every ledger invariant of one business, read from the database. */
const assertLedgerConsistent = (businessId: string): Promise<void> => assertLedger(running().db, businessId);

async function balanceOf(token: string, walletId: string): Promise<string> {
  const res = await get(`/cl/v1/wallets/${walletId}/balance`, { token });
  expect(res.status).to.equal(200);
  return res.body.balance;
}

async function operationalBalance(b: TestBusiness): Promise<string> {
  return (await get(`/cl/v1/businesses/${b.id}`, { token: b.token })).body.operational_account.balance;
}

describe('ledger under concurrency', function () {
  this.timeout(120_000);

  it('parallel transfers among shared wallets conserve money and never overdraw', async () => {
    const b = await newBusiness();
    const wallets: { id: string }[] = [];
    for (let i = 0; i < 4; i++) wallets.push(await fundedWallet(b.token, '100.00'));
    const transfers = Array.from({ length: 80 }, (_, i) => {
      const from = wallets[i % 4];
      const to = wallets[(i + 1 + (i % 3)) % 4]; // offset 1..3: never the source
      const amount = ['7.25', '13.00', '40.10', '55.55'][i % 4];
      return post('/cl/v1/transfers', { source_wallet_id: from.id, destination_wallet_id: to.id, amount }, { token: b.token });
    });
    const results = await Promise.all(transfers);
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 201 || s === 422), `statuses: ${statuses}`).to.equal(true);
    expect(statuses.filter((s) => s === 201).length).to.be.greaterThan(10);
    for (const r of results.filter((x) => x.status === 422)) expect(r.body.code).to.equal('INSUFFICIENT_FUNDS');

    const balances = await Promise.all(wallets.map((w) => balanceOf(b.token, w.id)));
    for (const bal of balances) expect(new Decimal(bal).gte(0), `balance ${bal}`).to.equal(true);
    const sum = balances.reduce((acc, bal) => acc.plus(bal), new Decimal(0));
    expect(sum.toFixed(2), 'wallets still hold the 400.00 funded into them').to.equal('400.00');
    await assertLedgerConsistent(b.id);
  });

  it('concurrent withdrawals drain a wallet exactly to 0.00 and no further', async () => {
    const b = await newBusiness();
    const wallet = await fundedWallet(b.token, '100.00');
    const results = await Promise.all(
      Array.from({ length: 30 }, () => post('/cl/v1/withdrawals', { wallet_id: wallet.id, amount: '10.00' }, { token: b.token })),
    );
    expect(results.filter((r) => r.status === 201)).to.have.length(10);
    expect(results.filter((r) => r.status === 422 && r.body.code === 'INSUFFICIENT_FUNDS')).to.have.length(20);
    expect(await balanceOf(b.token, wallet.id)).to.equal('0.00');
    expect(await operationalBalance(b)).to.equal('100.00');
    await assertLedgerConsistent(b.id);
  });

  it('concurrent refunds of one payout never exceed its amount', async () => {
    const b = await newBusiness();
    const wallet = await newWallet(b.token);
    await topup(b.token, '500.00');
    const payout = await credit(b.token, wallet.id, '100.00', 'payouts');
    await credit(b.token, wallet.id, '200.00'); // more money in the wallet than the payout
    const results = await Promise.all(
      Array.from({ length: 25 }, () =>
        post('/cl/v1/refunds', { original_transaction_id: payout.id, amount: '10.00' }, { token: b.token }),
      ),
    );
    const ok = results.filter((r) => r.status === 201);
    expect(ok).to.have.length(10);
    expect(results.filter((r) => r.status === 422 && r.body.code === 'REFUND_EXCEEDS_ORIGINAL')).to.have.length(15);
    const totals = ok.map((r) => r.body.total_refunded_amount).sort((x, y) => Number(x) - Number(y));
    expect(totals).to.deep.equal(['10.00', '20.00', '30.00', '40.00', '50.00', '60.00', '70.00', '80.00', '90.00', '100.00']);
    expect((await get(`/cl/v1/payouts/${payout.id}`, { token: b.token })).body.refunded_amount).to.equal('100.00');
    expect(await balanceOf(b.token, wallet.id)).to.equal('200.00');
    await assertLedgerConsistent(b.id);
  });

  it('concurrent transfers and refunds on shared wallets keep every invariant', async () => {
    const b = await newBusiness();
    const a = await newWallet(b.token);
    const c = await newWallet(b.token);
    await topup(b.token, '1000.00');
    const payout = await credit(b.token, a.id, '300.00', 'payouts');
    await credit(b.token, c.id, '300.00');
    const calls = Array.from({ length: 60 }, (_, i) => {
      if (i % 3 === 0) return post('/cl/v1/refunds', { original_transaction_id: payout.id, amount: '25.00' }, { token: b.token });
      const [from, to] = i % 2 ? [a, c] : [c, a];
      return post('/cl/v1/transfers', { source_wallet_id: from.id, destination_wallet_id: to.id, amount: '35.00' }, { token: b.token });
    });
    const results = await Promise.all(calls);
    for (const r of results) expect([201, 422], JSON.stringify(r.body)).to.include(r.status);
    const refunded = results.filter((r, i) => i % 3 === 0 && r.status === 201).length;
    expect(refunded * 25).to.be.at.most(300);
    const [balA, balC, op] = [await balanceOf(b.token, a.id), await balanceOf(b.token, c.id), await operationalBalance(b)];
    expect(new Decimal(balA).gte(0) && new Decimal(balC).gte(0)).to.equal(true);
    expect(new Decimal(balA).plus(balC).plus(op).toFixed(2), 'wallets + operational = money topped up').to.equal('1000.00');
    expect(new Decimal(op).toFixed(2)).to.equal(new Decimal(400).plus(refunded * 25).toFixed(2));
    await assertLedgerConsistent(b.id);
  });

  it('concurrent keyed funds from the hot operational account drain it exactly, each key once, replays change nothing', async () => {
    const b = await newBusiness();
    const wallets = [await newWallet(b.token), await newWallet(b.token), await newWallet(b.token)];
    await topup(b.token, '100.00');
    const calls = Array.from({ length: 60 }, (_, i) => ({ key: randomUUID(), body: { wallet_id: wallets[i % 3].id, amount: '2.00' } }));
    const send = () => Promise.all(calls.map((c) => post('/cl/v1/funds', c.body, { token: b.token, idempotencyKey: c.key })));
    const results = await send();
    expect(results.filter((r) => r.status === 201)).to.have.length(50);
    expect(results.filter((r) => r.status === 422 && r.body.code === 'INSUFFICIENT_FUNDS')).to.have.length(10);
    expect(await operationalBalance(b)).to.equal('0.00');
    const keys = await running().db('idempotency_keys').where({ scope: b.id }).select('state', 'response_body');
    expect(keys.filter((k) => k.state === 'COMPLETED' && k.response_body.transaction_id)).to.have.length(50);
    expect(keys.filter((k) => k.state === 'COMPLETED' && k.response_body.refusal?.code === 'INSUFFICIENT_FUNDS')).to.have.length(10);

    const replays = await send();
    replays.forEach((r, i) => {
      expect(r.headers.get('idempotent-replayed')).to.equal('true');
      expect(r.status).to.equal(results[i].status);
      expect(r.body).to.deep.equal(results[i].body);
    });
    expect(await operationalBalance(b)).to.equal('0.00');
    await assertLedgerConsistent(b.id);
  });

  it('concurrent transfers both ways between the same wallets, under keys, never deadlock and conserve money', async () => {
    const b = await newBusiness();
    const [x, y] = [await fundedWallet(b.token, '50.00'), await fundedWallet(b.token, '50.00')];
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => {
        const [from, to] = i % 2 ? [x, y] : [y, x];
        return post('/cl/v1/transfers', { source_wallet_id: from.id, destination_wallet_id: to.id, amount: '7.00' }, { token: b.token, idempotencyKey: randomUUID() });
      }),
    );
    for (const r of results) expect([201, 422], JSON.stringify(r.body)).to.include(r.status);
    const [bx, by] = [await balanceOf(b.token, x.id), await balanceOf(b.token, y.id)];
    expect(new Decimal(bx).plus(by).toFixed(2)).to.equal('100.00');
    await assertLedgerConsistent(b.id);
  });

  it('fifty concurrent identical requests with one Idempotency-Key make exactly one transaction', async () => {
    const b = await newBusiness();
    const wallet = await newWallet(b.token);
    await topup(b.token, '100.00');
    const key = randomUUID();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => post('/cl/v1/funds', { wallet_id: wallet.id, amount: '10.00' }, { token: b.token, idempotencyKey: key })),
    );
    for (const r of results) {
      expect([201, 409]).to.include(r.status);
      if (r.status === 409) {
        expect(r.body.code).to.equal('IDEMPOTENCY_KEY_IN_USE');
        expect(r.headers.get('retry-after')).to.match(/^\d+$/);
      }
    }
    const created = results.filter((r) => r.status === 201);
    expect(new Set(created.map((r) => r.body.id)).size).to.equal(1);
    expect(await balanceOf(b.token, wallet.id)).to.equal('10.00');
    const list = await get(`/cl/v1/wallets/${wallet.id}/transactions`, { token: b.token });
    expect(list.body.data).to.have.length(1);
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_USE while the first request still runs, then replays it', async () => {
    const b = await newBusiness();
    const wallet = await newWallet(b.token);
    await topup(b.token, '50.00');
    const db = running().db;
    const key = randomUUID();
    const body = { wallet_id: wallet.id, amount: '5.00' };
    // Hold the wallet's row lock so that the first request waits inside its transaction.
    const trx = await db.transaction();
    await trx('accounts').where({ id: wallet.id }).forUpdate().select('id');
    const first = post('/cl/v1/funds', body, { token: b.token, idempotencyKey: key });
    await new Promise((r) => setTimeout(r, 300));
    const second = await post('/cl/v1/funds', body, { token: b.token, idempotencyKey: key });
    expectProblem(second, 409, 'IDEMPOTENCY_KEY_IN_USE');
    expect(second.headers.get('retry-after')).to.equal('1');
    await trx.commit();
    const done = await first;
    expect(done.status).to.equal(201);
    const replay = await post('/cl/v1/funds', body, { token: b.token, idempotencyKey: key });
    expect(replay.status).to.equal(201);
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(replay.body).to.deep.equal(done.body);
    expect(await balanceOf(b.token, wallet.id)).to.equal('5.00');
  });
});

describe('ledger guards in the database', () => {
  it('refuses to change or delete a ledger entry', async () => {
    const b = await newBusiness();
    await topup(b.token, '10.00');
    const db = running().db;
    const entry = await db('ledger_entries').where({ business_id: b.id }).first('business_id', 'account_id', 'entry_number');
    let error: unknown;
    try {
      await db('ledger_entries').where(entry).update({ amount: '99.00' });
    } catch (err) {
      error = err;
    }
    expect(String(error)).to.match(/immutable/);
    error = undefined;
    try {
      await db('ledger_entries').where(entry).delete();
    } catch (err) {
      error = err;
    }
    expect(String(error)).to.match(/immutable/);
  });

  it('refuses to commit an unbalanced ledger transaction', async () => {
    const b = await newBusiness();
    const tx = await topup(b.token, '10.00');
    const db = running().db;
    const account = await db('accounts').where({ business_id: b.id, kind: 'OPERATIONAL' }).first('id');
    let error: unknown;
    try {
      await db.transaction(async (trx) => {
        await trx('ledger_entries').insert({ business_id: b.id, transaction_id: tx.id, account_id: account.id, entry_number: 1000, amount: '1.00', balance_after: '11.00' });
      });
    } catch (err) {
      error = err;
    }
    expect(String(error)).to.match(/unbalanced/);
  });
});

describe('idempotency keys left behind by a dead process', () => {
  it('lets the same request take over a claim stuck IN_PROGRESS for over a minute, with one effect', async () => {
    const b = await newBusiness();
    const wallet = await newWallet(b.token);
    await topup(b.token, '20.00');
    const body = { wallet_id: wallet.id, amount: '4.00' };
    const key = randomUUID();
    const db = running().db;
    const stale = {
      id: randomUUID(),
      scope: b.id,
      business_id: b.id,
      key,
      request_hash: requestHash('createFund', {}, body),
      state: 'IN_PROGRESS',
      created_at: new Date(Date.now() - 120_000),
      expires_at: new Date(Date.now() + 3_600_000),
    };
    await db('idempotency_keys').insert(stale);
    const other = await post('/cl/v1/funds', { ...body, amount: '5.00' }, { token: b.token, idempotencyKey: key });
    expect(other.status, 'another body may not take it over').to.equal(422);
    const res = await post('/cl/v1/funds', body, { token: b.token, idempotencyKey: key });
    expect(res.status).to.equal(201);
    const replay = await post('/cl/v1/funds', body, { token: b.token, idempotencyKey: key });
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(await balanceOf(b.token, wallet.id)).to.equal('4.00');

    const fresh = { ...stale, id: randomUUID(), key: randomUUID(), created_at: new Date() };
    await db('idempotency_keys').insert(fresh);
    const busy = await post('/cl/v1/funds', body, { token: b.token, idempotencyKey: fresh.key });
    expect(busy.status, 'a recent claim is still in use').to.equal(409);
  });
});
