/**
 * The PL/pgSQL ledger (src/ledger/sql/) called directly: every rule it
 * enforces refuses with the API's error code and changes nothing; what it
 * returns is what was committed; a top-up's outbox event. (Its Idempotency-Key
 * handling: idempotencyKeys.test.ts.)
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { AppError } from '../../src/kernel/errors.js';
import { move, type TransactionType } from '../../src/ledger/ledger.js';
import { KeyClaim } from '../../src/kernel/idempotency/idempotency.js';
import { get, request } from '../support/client.js';
import { credit, fundedWallet, newBusiness, newWallet, topup, type TestBusiness } from '../support/fixtures.js';
import { running } from '../support/service.js';
import { errorOf } from '../support/assertions.js';

const db = () => running().db;

/** Everything of the business the ledger could change (an account's row holds its last entry's number). */
async function snapshot(businessId: string): Promise<unknown> {
  const { rows } = await db().raw(
    `SELECT (SELECT json_agg(a ORDER BY a.id) FROM accounts a WHERE a.business_id = :b) AS accounts,
            (SELECT json_agg(t ORDER BY t.id) FROM transactions t WHERE t.business_id = :b) AS transactions,
            (SELECT count(*) FROM ledger_entries e WHERE e.business_id = :b) AS entries,
            (SELECT count(*) FROM outbox_events o WHERE o.business_id = :b) AS outbox,
            (SELECT json_agg(k ORDER BY k.id) FROM idempotency_keys k WHERE k.scope = CAST(:b AS text)) AS keys`,
    { b: businessId },
  );
  return rows[0];
}

/**
 * Asserts that the ledger refuses `type`/`body` with `code` (and `pointer`) and
 * that the business is unchanged, both without and with an Idempotency-Key
 * (which then keeps the refusal, and nothing else).
 */
async function expectRefusal(b: TestBusiness, type: TransactionType, body: object, code: string, pointer?: string): Promise<AppError> {
  const before = (await snapshot(b.id)) as Record<string, unknown>;
  const error = await errorOf(move(db(), b.id, type, body));
  expect(error, `${type} ${JSON.stringify(body)}`).to.be.instanceOf(AppError);
  const appError = error as AppError;
  expect(appError.code, appError.message).to.equal(code);
  if (pointer) expect(appError.errors?.map((e) => e.pointer)).to.deep.equal([pointer]);
  expect(await snapshot(b.id), `${code} changed nothing`).to.deep.equal(before);

  const claim = new KeyClaim(b.id, randomUUID(), 'hash', { request_id: 'r', instance: '/' });
  const keyed = await errorOf(move(db(), b.id, type, body, claim));
  expect((keyed as AppError).code, `${code} under a key`).to.equal(code);
  const { keys: keysAfter, ...after } = (await snapshot(b.id)) as Record<string, unknown>;
  const { keys: keysBefore, ...rest } = before;
  expect(after, `${code} under a key changed nothing but the key`).to.deep.equal(rest);
  const kept = await db()('idempotency_keys').where({ scope: b.id, key: claim.key }).first();
  expect(kept.response_body.refusal.code).to.equal(code);
  expect((keysAfter as unknown[] | null)?.length ?? 0).to.equal(((keysBefore as unknown[] | null)?.length ?? 0) + 1);
  return appError;
}

async function suspend(b: TestBusiness, walletId: string): Promise<void> {
  expect((await request('PATCH', `/cl/v1/wallets/${walletId}`, { token: b.token, body: { status: 'SUSPENDED' } })).status).to.equal(200);
}

describe('ledger (PL/pgSQL): every refusal changes nothing', () => {
  let b: TestBusiness;
  let other: TestBusiness;
  let rich: { id: string };
  let poor: { id: string };
  before(async () => {
    b = await newBusiness();
    other = await newBusiness();
    rich = await fundedWallet(b.token, '100.00');
    poor = await newWallet(b.token);
  });

  it('VALIDATION_ERROR for a zero, malformed or missing amount, at /amount', async () => {
    for (const amount of ['0', '0.00', '1.234', '-1', '1e3', undefined]) {
      await expectRefusal(b, 'FUND', { wallet_id: rich.id, amount }, 'VALIDATION_ERROR', '/amount');
    }
    await expectRefusal(b, 'REFUND', { wallet_id: rich.id, amount: '0' }, 'VALIDATION_ERROR', '/amount');
  });

  it('WALLET_NOT_FOUND for an unknown id, a non-UUID and another business\'s wallet; BUSINESS_NOT_FOUND for an unknown business', async () => {
    const theirs = await newWallet(other.token);
    for (const id of [randomUUID(), 'not-a-uuid', theirs.id]) {
      await expectRefusal(b, 'FUND', { wallet_id: id, amount: '1.00' }, 'WALLET_NOT_FOUND');
      await expectRefusal(b, 'TRANSFER', { source_wallet_id: rich.id, destination_wallet_id: id, amount: '1.00' }, 'WALLET_NOT_FOUND');
    }
    const nobody = { id: randomUUID(), token: '', operationalAccountNumber: '' };
    await expectRefusal(nobody, 'TOPUP', { amount: '1.00' }, 'BUSINESS_NOT_FOUND');
  });

  it('SAME_WALLET_TRANSFER, before looking the wallet up', async () => {
    const id = randomUUID();
    await expectRefusal(b, 'TRANSFER', { source_wallet_id: id, destination_wallet_id: id, amount: '1.00' }, 'SAME_WALLET_TRANSFER');
  });

  it('WALLET_NOT_ACTIVE for a suspended debit or credit wallet', async () => {
    const suspended = await fundedWallet(b.token, '10.00');
    await suspend(b, suspended.id);
    const err = await expectRefusal(b, 'TRANSFER', { source_wallet_id: suspended.id, destination_wallet_id: rich.id, amount: '1.00' }, 'WALLET_NOT_ACTIVE');
    expect(err.message).to.match(/^Wallet 9\d{11} is SUSPENDED; only ACTIVE wallets move money\.$/);
    await expectRefusal(b, 'TRANSFER', { source_wallet_id: rich.id, destination_wallet_id: suspended.id, amount: '1.00' }, 'WALLET_NOT_ACTIVE');
    await expectRefusal(b, 'FUND', { wallet_id: suspended.id, amount: '1.00' }, 'WALLET_NOT_ACTIVE');
  });

  it('INSUFFICIENT_FUNDS for a wallet without overdraft and for the operational account', async () => {
    const err = await expectRefusal(b, 'TRANSFER', { source_wallet_id: poor.id, destination_wallet_id: rich.id, amount: '0.01' }, 'INSUFFICIENT_FUNDS');
    expect(err.message).to.match(/^Wallet 9\d{11} has 0\.00 SAR; 0\.01 SAR was requested\.$/);
    await expectRefusal(b, 'WITHDRAWAL', { wallet_id: rich.id, amount: '100.01' }, 'INSUFFICIENT_FUNDS');
    await expectRefusal(b, 'PAYOUT', { wallet_id: rich.id, amount: '999999999999999.99' }, 'INSUFFICIENT_FUNDS');
  });

  it('BALANCE_LIMIT_EXCEEDED before a balance reaches ±1e15 (the documented 15 integer digits)', async () => {
    const big = await newBusiness();
    const { rows } = await db().raw(
      `SELECT count(ledger_move(?::uuid, 'TOPUP', '{"amount": "999999999999999.99"}')) AS n FROM generate_series(1, 1)`,
      [big.id],
    );
    expect(Number(rows[0].n)).to.equal(1);
    await expectRefusal(big, 'TOPUP', { amount: '999999999999999.99' }, 'BALANCE_LIMIT_EXCEEDED');
  });

  it('refunds: TRANSACTION_NOT_FOUND, TRANSACTION_NOT_REFUNDABLE, REFUND_EXCEEDS_ORIGINAL, VALIDATION_ERROR at /wallet_id', async () => {
    await topup(b.token, '300.00');
    const payout = await credit(b.token, poor.id, '50.00', 'payouts');
    const fund = await credit(b.token, poor.id, '50.00');
    const theirs = await (async () => {
      const w = await newWallet(other.token);
      await topup(other.token, '5.00');
      return credit(other.token, w.id, '5.00', 'payouts');
    })();
    for (const id of [randomUUID(), theirs.id]) {
      await expectRefusal(b, 'REFUND', { original_transaction_id: id, amount: '1.00' }, 'TRANSACTION_NOT_FOUND');
    }
    await expectRefusal(b, 'REFUND', { original_transaction_id: fund.id, amount: '1.00' }, 'TRANSACTION_NOT_REFUNDABLE');
    await expectRefusal(b, 'REFUND', { original_transaction_id: payout.id, amount: '50.01' }, 'REFUND_EXCEEDS_ORIGINAL');
    await expectRefusal(b, 'REFUND', { amount: '1.00' }, 'VALIDATION_ERROR', '/wallet_id');
    // The payout's refunded total is raised before the wallet is debited: a refusal there rolls it back too.
    const empty = await newWallet(b.token);
    await expectRefusal(b, 'REFUND', { original_transaction_id: payout.id, wallet_id: empty.id, amount: '1.00' }, 'INSUFFICIENT_FUNDS');
    await expectRefusal(b, 'REFUND', { original_transaction_id: payout.id, wallet_id: randomUUID(), amount: '1.00' }, 'WALLET_NOT_FOUND');
    await move(db(), b.id, 'REVERSAL', { original_transaction_id: payout.id });
    await expectRefusal(b, 'REFUND', { original_transaction_id: payout.id, amount: '1.00' }, 'TRANSACTION_NOT_REFUNDABLE');
  });

  it('reversals: TRANSACTION_ALREADY_REVERSED, TRANSACTION_NOT_REVERSIBLE, and the rules of the reversed posting', async () => {
    const w = await fundedWallet(b.token, '30.00');
    const fund = (await get(`/cl/v1/wallets/${w.id}/transactions`, { token: b.token })).body.data[0];
    const spent = await newWallet(b.token);
    await move(db(), b.id, 'TRANSFER', { source_wallet_id: w.id, destination_wallet_id: spent.id, amount: '30.00' });
    await expectRefusal(b, 'REVERSAL', { original_transaction_id: fund.id }, 'INSUFFICIENT_FUNDS');
    const top = await topup(b.token, '1.00');
    await expectRefusal(b, 'REVERSAL', { original_transaction_id: top.id }, 'TRANSACTION_NOT_REVERSIBLE');
    const payout = await credit(b.token, w.id, '10.00', 'payouts');
    await move(db(), b.id, 'REFUND', { original_transaction_id: payout.id, amount: '1.00' });
    await expectRefusal(b, 'REVERSAL', { original_transaction_id: payout.id }, 'TRANSACTION_NOT_REVERSIBLE');
    const again = await credit(b.token, w.id, '2.00');
    await move(db(), b.id, 'REVERSAL', { original_transaction_id: again.id });
    await expectRefusal(b, 'REVERSAL', { original_transaction_id: again.id }, 'TRANSACTION_ALREADY_REVERSED');
    await expectRefusal(b, 'REVERSAL', { original_transaction_id: randomUUID() }, 'TRANSACTION_NOT_FOUND');
  });

  it('ledger_post itself refuses accounts of another business, unknown or identical accounts (a caller bug, not a refusal)', async () => {
    const theirs = await newWallet(other.token);
    for (const [debit, creditId] of [[rich.id, theirs.id], [rich.id, randomUUID()], [rich.id, rich.id], [theirs.id, rich.id]]) {
      const before = await snapshot(b.id);
      // Sides named by account id (no kind): what a caller read from the ledger itself, as a reversal does.
      const error = await errorOf(
        db().raw(`SELECT ledger_post(?::uuid, 'TRANSFER', NULL, ?, NULL, ?, '1.00', 'SAR', NULL, NULL)`, [b.id, debit, creditId]),
      );
      expect(String(error)).to.match(/ledger_post: /);
      expect((error as { code?: string }).code).to.equal('P0001');
      expect(await snapshot(b.id)).to.deep.equal(before);
    }
  });
});

describe('ledger (PL/pgSQL): what it returns is what it committed', () => {
  it('the response of every movement equals the transaction as read afterwards', async () => {
    const b = await newBusiness();
    const [w1, w2] = [await newWallet(b.token), await newWallet(b.token)];
    const top = await topup(b.token, '500.00');
    const calls: [string, object][] = [
      ['/cl/v1/funds', { wallet_id: w1.id, amount: '100.00', notes: 'a fund', external_reference: 'ext-1' }],
      ['/cl/v1/payouts', { wallet_id: w2.id, amount: '50.50' }],
      ['/cl/v1/transfers', { source_wallet_id: w1.id, destination_wallet_id: w2.id, amount: '10.25', currency: 'SAR' }],
      ['/cl/v1/withdrawals', { wallet_id: w2.id, amount: '0.75' }],
    ];
    const responses = [top];
    for (const [path, body] of calls) {
      const res = await request('POST', path, { token: b.token, body });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      responses.push(res.body);
    }
    const reversal = await request('POST', '/cl/v1/reversals', { token: b.token, body: { original_transaction_id: responses[3].id } });
    expect(reversal.status, JSON.stringify(reversal.body)).to.equal(201);
    responses.push(reversal.body);
    for (const res of responses) {
      const read = await get(`/cl/v1/transactions/${res.id}`, { token: b.token });
      const expected = res.id === responses[3].id ? { ...res, reversal_transaction_id: reversal.body.id } : res;
      expect(read.body, res.type).to.deep.equal(expected);
    }
  });

  it('ledger_posting_of rebuilds each posting exactly as it was returned, after later refunds and reversals too', async () => {
    const b = await newBusiness();
    const [w1, w2] = [await newWallet(b.token), await newWallet(b.token)];
    const postings = [await move(db(), b.id, 'TOPUP', { amount: '900.00', external_reference: 'top' })];
    const add = async (type: TransactionType, body: object) => {
      const p = await move(db(), b.id, type, body);
      postings.push(p);
      return p;
    };
    const payout = await add('PAYOUT', { wallet_id: w1.id, amount: '100.00', notes: 'n' });
    await add('FUND', { wallet_id: w2.id, amount: '50.00' });
    const transfer = await add('TRANSFER', { source_wallet_id: w2.id, destination_wallet_id: w1.id, amount: '5.55' });
    await add('WITHDRAWAL', { wallet_id: w1.id, amount: '1.00' });
    await add('REFUND', { original_transaction_id: payout.id, amount: '10.00' });
    await add('REFUND', { original_transaction_id: payout.id, wallet_id: w2.id, amount: '20.00' });
    await add('REFUND', { wallet_id: w1.id, amount: '1.00' });
    await add('REVERSAL', { original_transaction_id: transfer.id });
    for (const posting of postings) {
      const { rows } = await db().raw('SELECT ledger_posting_of(?::uuid, ?::uuid) AS p', [b.id, posting.id]);
      expect(rows[0].p, posting.type).to.deep.equal(posting);
    }
  });

  it('a top-up writes one topup.complete event to the outbox, in its transaction', async () => {
    const b = await newBusiness();
    const top = await topup(b.token, '12.34');
    const events = await db()('outbox_events').where({ business_id: b.id });
    expect(events).to.have.length(1);
    expect(events[0].code).to.equal('topup.complete');
    // Stored in v4's shape, and saying so: each reader renders it at its own version.
    expect(events[0].data).to.deep.equal({ transaction_id: top.id, business_id: b.id, amount: '12.34', currency: 'SAR', occurred_at: top.created_at });
    expect(events[0].data_version).to.equal('v4');
  });
});
