/**
 * The Idempotency-Key handling of the PL/pgSQL ledger (src/ledger/sql/) called
 * directly: ledger_move_keyed takes the key, moves and keeps the outcome in
 * one statement; a key in flight is in use (same body) or reused (another);
 * refusals are kept with their code and replayed with the HTTP status
 * src/kernel/errors.ts gives it.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { move } from '../../src/ledger/ledger.js';
import { AppError } from '../../src/kernel/errors.js';
import { KeyClaim } from '../../src/kernel/idempotency/idempotency.js';
import { errorOf } from '../support/assertions.js';
import { get } from '../support/client.js';
import { newBusiness, newWallet, topup } from '../support/fixtures.js';
import { running } from '../support/service.js';

const db = () => running().db;

describe('ledger (PL/pgSQL): ledger_move_keyed', () => {
  const context = { request_id: 'req-1', instance: '/cl/v1/funds' };

  it('a duplicate arriving while the request it repeats releases its locks gets the replay, not 422', async () => {
    // PostgreSQL releases a committed transaction's locks one by one: the duplicate can find
    // the request lock free and the key lock still held. Hold the key lock from another
    // session after the first request committed, and send the duplicate.
    const b = await newBusiness();
    const w = await newWallet(b.token);
    await topup(b.token, '10.00');
    const first = new KeyClaim(b.id, randomUUID(), 'hash-1', context);
    const posting = await move(db(), b.id, 'FUND', { wallet_id: w.id, amount: '3.00' }, first);
    const holder = await db().transaction();
    try {
      await holder.raw("SELECT pg_advisory_xact_lock(hashtextextended(? || '/' || ?, 0))", [b.id, first.key]);
      const duplicate = new KeyClaim(b.id, first.key, 'hash-1', context);
      expect(await move(db(), b.id, 'FUND', { wallet_id: w.id, amount: '3.00' }, duplicate)).to.deep.equal(posting);
      expect(duplicate.replayed).to.equal(true);
      const other = new KeyClaim(b.id, first.key, 'hash-2', context);
      expect(((await errorOf(move(db(), b.id, 'FUND', { wallet_id: w.id, amount: '4.00' }, other))) as AppError).code).to.equal('IDEMPOTENCY_KEY_REUSED');
      // With no completed response, the key lock's holder is another request in flight.
      const fresh = new KeyClaim(b.id, randomUUID(), 'hash-3', context);
      await holder.raw("SELECT pg_advisory_xact_lock(hashtextextended(? || '/' || ?, 0))", [b.id, fresh.key]);
      expect(((await errorOf(move(db(), b.id, 'FUND', { wallet_id: w.id, amount: '1.00' }, fresh))) as AppError).code).to.equal('IDEMPOTENCY_KEY_REUSED');
    } finally {
      await holder.rollback();
    }
    expect((await get(`/cl/v1/wallets/${w.id}/balance`, { token: b.token })).body.balance).to.equal('3.00');
  });

  it('takes the key, moves and stores the posting with it in one statement; a second call finds it held', async () => {
    const b = await newBusiness();
    const w = await newWallet(b.token);
    await topup(b.token, '10.00');
    const first = new KeyClaim(b.id, randomUUID(), 'hash-1', context);
    const posting = await move(db(), b.id, 'FUND', { wallet_id: w.id, amount: '4.00' }, first);
    const row = await db()('idempotency_keys').where({ scope: b.id, key: first.key }).first();
    expect(row).to.include({ state: 'COMPLETED', request_hash: 'hash-1', business_id: b.id });
    // A ledger outcome is kept without an HTTP status: the service gives it (src/kernel/errors.ts).
    expect(row.response_status).to.equal(null);
    expect(row.response_body).to.deep.equal({ transaction_id: posting.id });

    const replay = new KeyClaim(b.id, first.key, 'hash-1', context);
    expect(await move(db(), b.id, 'FUND', { wallet_id: w.id, amount: '4.00' }, replay)).to.deep.equal(posting);
    expect(replay.replayed).to.equal(true);
    const other = new KeyClaim(b.id, first.key, 'hash-2', context);
    const error = await errorOf(move(db(), b.id, 'FUND', { wallet_id: w.id, amount: '5.00' }, other));
    expect((error as AppError).code).to.equal('IDEMPOTENCY_KEY_REUSED');
    expect((await get(`/cl/v1/wallets/${w.id}/balance`, { token: b.token })).body.balance).to.equal('4.00');
  });

  it('stores a refusal with the key, in the same transaction, and moves nothing', async () => {
    const b = await newBusiness();
    const w = await newWallet(b.token);
    const claim = new KeyClaim(b.id, randomUUID(), 'hash', context);
    const error = await errorOf(move(db(), b.id, 'FUND', { wallet_id: w.id, amount: '1.00' }, claim));
    expect((error as AppError).code).to.equal('INSUFFICIENT_FUNDS');
    const row = await db()('idempotency_keys').where({ scope: b.id, key: claim.key }).first();
    expect(row).to.include({ state: 'COMPLETED', response_status: null, business_id: b.id });
    expect(row.response_body.refusal).to.deep.equal({ code: 'INSUFFICIENT_FUNDS', detail: (error as AppError).message, pointer: null });
    expect(row.response_body.context).to.deep.equal(context);
    expect(await db()('transactions').where({ business_id: b.id }).count({ n: '*' }).first()).to.deep.equal({ n: '0' });
    // The replay answers the same refusal, with the status src/kernel/errors.ts gives its code.
    const replay = new KeyClaim(b.id, claim.key, 'hash', { request_id: 'req-2', instance: '/cl/v1/funds' });
    const replayed = await errorOf(move(db(), b.id, 'FUND', { wallet_id: w.id, amount: '1.00' }, replay));
    const { response } = replayed as { response: { status: number; body: { code: string; detail: string; request_id: string } } };
    expect(response.status).to.equal(422);
    expect(response.body).to.include({ code: 'INSUFFICIENT_FUNDS', detail: (error as AppError).message, request_id: context.request_id });
  });

  it('a key held by a request in flight (its advisory locks) is in use for the same body, reused for another', async () => {
    const b = await newBusiness();
    const w = await newWallet(b.token);
    await topup(b.token, '10.00');
    const key = randomUUID();
    // Hold the wallet's row so that the first call waits inside its transaction, holding the key.
    const trx = await db().transaction();
    await trx('accounts').where({ id: w.id }).forUpdate().select('id');
    const first = move(db(), b.id, 'FUND', { wallet_id: w.id, amount: '1.00' }, new KeyClaim(b.id, key, 'hash-1', context));
    await new Promise((r) => setTimeout(r, 300));
    const same = await errorOf(move(db(), b.id, 'FUND', { wallet_id: w.id, amount: '1.00' }, new KeyClaim(b.id, key, 'hash-1', context)));
    const other = await errorOf(move(db(), b.id, 'FUND', { wallet_id: w.id, amount: '2.00' }, new KeyClaim(b.id, key, 'hash-2', context)));
    await trx.commit();
    await first;
    expect((same as AppError).code).to.equal('IDEMPOTENCY_KEY_IN_USE');
    expect((other as AppError).code).to.equal('IDEMPOTENCY_KEY_REUSED');
    expect((await get(`/cl/v1/wallets/${w.id}/balance`, { token: b.token })).body.balance).to.equal('1.00');
  });
});
