/**
 * Rules every movement shares: balances stay within ±999999999999999.99 (the
 * documented Balance pattern), and a wallet that is not ACTIVE moves no money.
 * Each refusal is a 422 that changes nothing.
 */
import { expect } from 'chai';
import { expectProblem } from '../support/assertions.js';
import { get, post, request } from '../support/client.js';
import { credit, newBusiness, newWallet, topup, type TestBusiness } from '../support/fixtures.js';

const MAX = '999999999999999.99';

async function balances(b: TestBusiness, walletIds: string[]): Promise<string[]> {
  const wallets = await Promise.all(walletIds.map(async (id) => (await get(`/cl/v1/wallets/${id}`, { token: b.token })).body.balance));
  const business = await get(`/cl/v1/businesses/${b.id}`, { token: b.token });
  return [business.body.operational_account.balance, ...wallets];
}

async function ok(path: string, body: object, token: string): Promise<any> {
  const res = await post(path, body, { token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body;
}

describe('movement rules', () => {
  it(`422 BALANCE_LIMIT_EXCEEDED on every movement that would take a balance past ±${MAX}; nothing changes`, async () => {
    const b = await newBusiness();
    const overdrawn = await newWallet(b.token, { can_overdraft: true });
    const spare = await newWallet(b.token, { can_overdraft: true });
    const full = await newWallet(b.token);
    const ids = [overdrawn.id, spare.id, full.id];
    const refused = async (path: string, body: object) => {
      const before = await balances(b, ids);
      expectProblem(await post(path, body, { token: b.token }), 422, 'BALANCE_LIMIT_EXCEEDED');
      expect(await balances(b, ids), path).to.deep.equal(before);
    };

    // The overdraft wallet down to -MAX (the operational account up to MAX): its debits are refused.
    await ok('/cl/v1/withdrawals', { wallet_id: overdrawn.id, amount: MAX }, b.token);
    await refused('/cl/v1/withdrawals', { wallet_id: overdrawn.id, amount: '0.01' });
    await refused('/cl/v1/transfers', { source_wallet_id: overdrawn.id, destination_wallet_id: full.id, amount: '0.01' });
    await refused('/cl/v1/refunds', { wallet_id: overdrawn.id, amount: '0.01' });

    // A wallet up to MAX: credits to it are refused.
    const fund = await ok('/cl/v1/funds', { wallet_id: full.id, amount: MAX }, b.token);
    await ok('/cl/v1/withdrawals', { wallet_id: spare.id, amount: '1.00' }, b.token);
    await refused('/cl/v1/funds', { wallet_id: full.id, amount: '1.00' });
    await refused('/cl/v1/payouts', { wallet_id: full.id, amount: '1.00' });

    // The operational account (1.00) would pass MAX by a reversal of the MAX fund, or a top-up.
    await refused('/cl/v1/reversals', { original_transaction_id: fund.id });
    await refused('/cl/v1/testhelpers/topups', { amount: MAX });
    expect(await balances(b, ids)).to.deep.equal(['1.00', `-${MAX}`, '-1.00', MAX]);
  });

  it('422 WALLET_NOT_ACTIVE for a withdrawal, a refund and a reversal touching a SUSPENDED wallet; nothing changes', async () => {
    const b = await newBusiness();
    const wallet = await newWallet(b.token);
    await topup(b.token, '100.00');
    const fund = await credit(b.token, wallet.id, '40.00');
    const payout = await credit(b.token, wallet.id, '30.00', 'payouts');
    const suspended = await request('PATCH', `/cl/v1/wallets/${wallet.id}`, { token: b.token, body: { status: 'SUSPENDED' } });
    expect(suspended.status).to.equal(200);
    const before = await balances(b, [wallet.id]);
    for (const [path, body] of [
      ['/cl/v1/withdrawals', { wallet_id: wallet.id, amount: '1.00' }],
      ['/cl/v1/refunds', { original_transaction_id: payout.id, amount: '1.00' }],
      ['/cl/v1/reversals', { original_transaction_id: fund.id }],
    ] as const) {
      expectProblem(await post(path, body, { token: b.token }), 422, 'WALLET_NOT_ACTIVE');
    }
    expect(await balances(b, [wallet.id])).to.deep.equal(before);
    expect((await get(`/cl/v1/payouts/${payout.id}`, { token: b.token })).body.refunded_amount).to.equal('0.00');
  });
});
