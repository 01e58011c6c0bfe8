/**
 * The core API's Transactions group: the business account balance, the
 * business's transactions (a page, filters, one by its TXN reference), and its
 * customers' wallets with their balances and transactions, all over the same ledger as
 * the closed loop. Each operation's success, its 404 (also for another business's
 * resource) and its 403 for a platform token.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { expectProblem } from '../support/assertions.js';
import { get } from '../support/client.js';
import { newBusiness, platformToken, topup, type TestBusiness } from '../support/fixtures.js';
import { assertLedgerConsistent } from '../support/ledgerInvariants.js';
import { createPayout, payoutBusiness, payoutReaching } from '../support/payouts.js';
import { running } from '../support/service.js';

describe('Core Transactions group: balances, transactions and wallets', function () {
  this.timeout(60_000);
  let b: TestBusiness;
  let other: TestBusiness;
  let customer: any;
  let payout: any;

  before(async () => {
    ({ b, customer } = await payoutBusiness('1000.00'));
    await topup(b.token, '500.00');
    const created = await createPayout(b, { payout_amount: '100.50', customer_id: customer.id, external_reference: `ref-${randomUUID()}` });
    payout = await payoutReaching(b, created.payout_id, 'COMPLETED');
    other = await newBusiness();
  });

  after(() => assertLedgerConsistent(running().db, b.id));

  const ok = async (path: string, business: TestBusiness = b): Promise<any> => {
    const res = await get(path, { token: business.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };

  /** Every item of a list, page by page with `limit` and the cursor. */
  const allPages = async (path: string, limit = 1): Promise<any[]> => {
    const items: any[] = [];
    let cursor: string | null = null;
    do {
      const sep = path.includes('?') ? '&' : '?';
      const page: any = await ok(`${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      items.push(...page.data);
      cursor = page.has_more ? page.next_cursor : null;
    } while (cursor);
    return items;
  };

  it('getBusinessAccountBalance: the operational and payout account balances', async () => {
    const body = await ok('/business-account/balance');
    expect(body).to.include({ business_id: b.id, currency: 'SAR' });
    expect(body.operational_account).to.deep.equal({ account_number: b.operationalAccountNumber, currency: 'SAR', balance: '500.00' });
    expect(body.payout_account.account_number).to.match(/^2[0-9]{11}$/);
    expect(body.payout_account.balance).to.equal('899.50');
    const fresh = await ok('/business-account/balance', other);
    expect(fresh.operational_account.balance).to.equal('0.00');
    expect(fresh.payout_account.balance).to.equal('0.00');
  });

  it('listBusinessTransactions: every ledger transaction of the business, newest first, page by page and filtered', async () => {
    const all = await allPages('/transactions');
    expect(all.map((t) => t.type)).to.deep.equal(['CUSTOMER_PAYOUT_COMPLETION', 'CUSTOMER_PAYOUT', 'TOPUP', 'TOPUP']);
    expect(all.every((t) => t.business_id === b.id)).to.equal(true);
    const payouts = await ok('/transactions?type=CUSTOMER_PAYOUT&status=SUCCESS');
    expect(payouts.data.map((t: any) => t.reference)).to.deep.equal([payout.transaction_id]);
    expect(payouts.has_more).to.equal(false);
    const none = await ok(`/transactions?created_from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
    expect(none.data).to.deep.equal([]);
    expect((await ok('/transactions', other)).data).to.deep.equal([]);
  });

  it('getTransactionDetails: a payout step by its TXN reference, with its entries', async () => {
    const creation = await ok(`/transactions/${payout.transaction_id}`);
    expect(creation).to.include({ reference: payout.transaction_id, type: 'CUSTOMER_PAYOUT', amount: '100.50', business_id: b.id });
    const completion = await ok(`/transactions/${payout.outcome_transaction_id}`);
    expect(completion).to.include({ type: 'CUSTOMER_PAYOUT_COMPLETION', destination_wallet_id: customer.wallet_id, receiver_account_number: customer.wallet_account_number });
    expect(completion.entries.map((e: any) => e.direction)).to.deep.equal(['DEBIT', 'CREDIT']);
  });

  it('getTransactionDetails: 404 TRANSACTION_NOT_FOUND for an unknown reference and for another business\'s', async () => {
    expectProblem(await get('/transactions/TXN999999999999', { token: b.token }), 404, 'TRANSACTION_NOT_FOUND');
    expectProblem(await get(`/transactions/${payout.transaction_id}`, { token: other.token }), 404, 'TRANSACTION_NOT_FOUND');
  });

  it('listWallets: the customers\' wallets of the business only, with their balances', async () => {
    const wallets = await allPages('/wallets?status=ACTIVE');
    expect(wallets.map((w) => w.id)).to.deep.equal([customer.wallet_id]);
    expect(wallets[0]).to.include({ account_number: customer.wallet_account_number, balance: '100.50', status: 'ACTIVE' });
    expect((await ok('/wallets', other)).data).to.deep.equal([]);
  });

  it('getWallet and getWalletBalance: one wallet and its balance', async () => {
    expect(await ok(`/wallets/${customer.wallet_id}`)).to.include({ id: customer.wallet_id, business_id: b.id, balance: '100.50' });
    expect(await ok(`/wallets/${customer.wallet_id}/balance`)).to.include({ wallet_id: customer.wallet_id, balance: '100.50', currency: 'SAR' });
  });

  it('listWalletTransactions: only the transactions that move the wallet', async () => {
    const txs = await allPages(`/wallets/${customer.wallet_id}/transactions`);
    expect(txs.map((t) => t.reference)).to.deep.equal([payout.outcome_transaction_id]);
    expect((await ok(`/wallets/${customer.wallet_id}/transactions?type=TOPUP`)).data).to.deep.equal([]);
  });

  for (const suffix of ['', '/balance', '/transactions']) {
    it(`GET /wallets/{wallet_id}${suffix}: 404 WALLET_NOT_FOUND for an unknown wallet and for another business's`, async () => {
      expectProblem(await get(`/wallets/${randomUUID()}${suffix}`, { token: b.token }), 404, 'WALLET_NOT_FOUND');
      expectProblem(await get(`/wallets/${customer.wallet_id}${suffix}`, { token: other.token }), 404, 'WALLET_NOT_FOUND');
    });
  }

  it('403 FORBIDDEN for a platform token on every operation of the group', async () => {
    const token = await platformToken();
    const paths = [
      '/business-account/balance',
      '/transactions',
      `/transactions/${payout.transaction_id}`,
      '/wallets',
      `/wallets/${customer.wallet_id}`,
      `/wallets/${customer.wallet_id}/balance`,
      `/wallets/${customer.wallet_id}/transactions`,
    ];
    for (const path of paths) expectProblem(await get(path, { token }), 403, 'FORBIDDEN');
  });
});
