import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { get, post } from '../support/client.js';
import { credit, newBusiness, newWallet, topup, type TestBusiness } from '../support/fixtures.js';
import { expectProblem } from '../support/assertions.js';

/** Lets the clock move on so consecutive transactions get distinct created_at milliseconds. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** A movement through the API; asserts 201. */
async function move(token: string, path: string, body: Record<string, unknown>): Promise<any> {
  const res = await post(`/cl/v1/${path}`, body, { token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body;
}

/** Every item of a list, following next_cursor with the given page size. */
async function collect(token: string, path: string, limit: number): Promise<{ ids: string[]; sizes: number[] }> {
  const ids: string[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const url: string = `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await get(url, { token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.has_more).to.equal(res.body.next_cursor !== null);
    sizes.push(res.body.data.length);
    ids.push(...res.body.data.map((t: any) => t.id));
    cursor = res.body.next_cursor;
  } while (cursor);
  return { ids, sizes };
}

describe('transactions', () => {
  /**
   * One business with, in order: topup 1000.00, fund w1 300.00, payout w2 200.00,
   * transfer w1→w2 50.00, withdrawal w2 20.00.
   * Balances: operational 1000 → 700 → 500 → 500 → 520; w1 300 → 250; w2 200 → 250 → 230.
   */
  let biz: TestBusiness;
  let other: TestBusiness;
  let w1: any;
  let w2: any;
  let topupTx: any;
  let fundTx: any;
  let payoutTx: any;
  let transferTx: any;
  let withdrawalTx: any;
  let chronological: any[];

  before(async () => {
    biz = await newBusiness();
    other = await newBusiness();
    w1 = await newWallet(biz.token);
    w2 = await newWallet(biz.token);
    topupTx = await topup(biz.token, '1000.00');
    await tick();
    fundTx = await credit(biz.token, w1.id, '300.00', 'funds');
    await tick();
    payoutTx = await credit(biz.token, w2.id, '200.00', 'payouts');
    await tick();
    transferTx = await move(biz.token, 'transfers', { source_wallet_id: w1.id, destination_wallet_id: w2.id, amount: '50' });
    await tick();
    withdrawalTx = await move(biz.token, 'withdrawals', { wallet_id: w2.id, amount: '20.00' });
    chronological = [topupTx, fundTx, payoutTx, transferTx, withdrawalTx];
  });

  describe('getTransaction', () => {
    it('returns the top-up: settlement account debited, operational account credited, no wallets', async () => {
      const res = await get(`/cl/v1/transactions/${topupTx.id}`, { token: biz.token });
      expect(res.status).to.equal(200);
      const t = res.body;
      expect(t).to.include({ id: topupTx.id, business_id: biz.id, type: 'TOPUP', status: 'SUCCESS', amount: '1000.00', currency: 'SAR' });
      expect(t.sender_account_number).to.match(/^8\d{11}$/);
      expect(t.receiver_account_number).to.equal(biz.operationalAccountNumber);
      expect(t.source_wallet_id).to.equal(null);
      expect(t.destination_wallet_id).to.equal(null);
      expect(t.entries).to.have.deep.members([
        { account_number: t.sender_account_number, direction: 'DEBIT', amount: '1000.00', balance_after: '-1000.00' },
        { account_number: biz.operationalAccountNumber, direction: 'CREDIT', amount: '1000.00', balance_after: '1000.00' },
      ]);
    });

    it('returns the fund as created: operational account → wallet, with balances after', async () => {
      const res = await get(`/cl/v1/transactions/${fundTx.id}`, { token: biz.token });
      expect(res.status).to.equal(200);
      const t = res.body;
      expect(t).to.deep.equal(fundTx);
      expect(t).to.include({
        type: 'FUND',
        status: 'SUCCESS',
        amount: '300.00',
        sender_account_number: biz.operationalAccountNumber,
        receiver_account_number: w1.account_number,
        source_wallet_id: null,
        destination_wallet_id: w1.id,
        original_transaction_id: null,
        reversal_transaction_id: null,
        refunded_amount: '0.00',
      });
      expect(t.reference).to.match(/^TXN\d{12}$/);
      expect(t.entries).to.have.deep.members([
        { account_number: biz.operationalAccountNumber, direction: 'DEBIT', amount: '300.00', balance_after: '700.00' },
        { account_number: w1.account_number, direction: 'CREDIT', amount: '300.00', balance_after: '300.00' },
      ]);
    });

    it('returns the payout: operational account → wallet', async () => {
      const t = (await get(`/cl/v1/transactions/${payoutTx.id}`, { token: biz.token })).body;
      expect(t).to.include({
        type: 'PAYOUT',
        amount: '200.00',
        sender_account_number: biz.operationalAccountNumber,
        receiver_account_number: w2.account_number,
        source_wallet_id: null,
        destination_wallet_id: w2.id,
      });
      expect(t.entries).to.have.deep.members([
        { account_number: biz.operationalAccountNumber, direction: 'DEBIT', amount: '200.00', balance_after: '500.00' },
        { account_number: w2.account_number, direction: 'CREDIT', amount: '200.00', balance_after: '200.00' },
      ]);
    });

    it('returns the transfer: both wallet ids and account numbers, one DEBIT and one CREDIT of the same amount', async () => {
      const t = (await get(`/cl/v1/transactions/${transferTx.id}`, { token: biz.token })).body;
      expect(t).to.include({
        type: 'TRANSFER',
        amount: '50.00',
        sender_account_number: w1.account_number,
        receiver_account_number: w2.account_number,
        source_wallet_id: w1.id,
        destination_wallet_id: w2.id,
      });
      expect(t.entries).to.have.length(2);
      const debit = t.entries.find((e: any) => e.direction === 'DEBIT');
      const creditEntry = t.entries.find((e: any) => e.direction === 'CREDIT');
      expect(debit).to.deep.equal({ account_number: w1.account_number, direction: 'DEBIT', amount: '50.00', balance_after: '250.00' });
      expect(creditEntry).to.deep.equal({ account_number: w2.account_number, direction: 'CREDIT', amount: '50.00', balance_after: '250.00' });
    });

    it('returns the withdrawal: wallet → operational account', async () => {
      const t = (await get(`/cl/v1/transactions/${withdrawalTx.id}`, { token: biz.token })).body;
      expect(t).to.include({
        type: 'WITHDRAWAL',
        amount: '20.00',
        sender_account_number: w2.account_number,
        receiver_account_number: biz.operationalAccountNumber,
        source_wallet_id: w2.id,
        destination_wallet_id: null,
      });
      expect(t.entries).to.have.deep.members([
        { account_number: w2.account_number, direction: 'DEBIT', amount: '20.00', balance_after: '230.00' },
        { account_number: biz.operationalAccountNumber, direction: 'CREDIT', amount: '20.00', balance_after: '520.00' },
      ]);
    });

    it('every transaction has exactly one DEBIT and one CREDIT entry of its amount', async () => {
      for (const tx of chronological) {
        const t = (await get(`/cl/v1/transactions/${tx.id}`, { token: biz.token })).body;
        expect(t.entries.map((e: any) => e.direction).sort(), t.type).to.deep.equal(['CREDIT', 'DEBIT']);
        for (const e of t.entries) expect(e.amount, t.type).to.equal(t.amount);
      }
    });

    it('404 TRANSACTION_NOT_FOUND for a random id', async () => {
      const res = await get(`/cl/v1/transactions/${randomUUID()}`, { token: biz.token });
      expectProblem(res, 404, 'TRANSACTION_NOT_FOUND');
    });

    it("404 TRANSACTION_NOT_FOUND (never 403) for another business's transaction", async () => {
      const res = await get(`/cl/v1/transactions/${fundTx.id}`, { token: other.token });
      expectProblem(res, 404, 'TRANSACTION_NOT_FOUND');
    });

    it('400 VALIDATION_ERROR for an id that is not a uuid', async () => {
      const res = await get('/cl/v1/transactions/TXN000000000001', { token: biz.token });
      expectProblem(res, 400, 'VALIDATION_ERROR');
    });
  });

  describe('listTransactions', () => {
    it("lists only the business's transactions, newest first", async () => {
      const res = await get('/cl/v1/transactions?limit=100', { token: biz.token });
      expect(res.status).to.equal(200);
      expect(res.body.data.map((t: any) => t.id)).to.deep.equal([...chronological].reverse().map((t) => t.id));
      expect(res.body.has_more).to.equal(false);
      expect(res.body.next_cursor).to.equal(null);
      for (const t of res.body.data) expect(t.business_id).to.equal(biz.id);
      const listedFund = res.body.data.find((t: any) => t.id === fundTx.id);
      expect(listedFund).to.deep.equal(fundTx);
      const foreign = await get('/cl/v1/transactions?limit=100', { token: other.token });
      expect(foreign.body.data).to.have.length(0);
    });

    it('filters by type', async () => {
      const funds = await get('/cl/v1/transactions?type=FUND', { token: biz.token });
      expect(funds.status).to.equal(200);
      expect(funds.body.data.map((t: any) => t.id)).to.deep.equal([fundTx.id]);
      const transfers = await get('/cl/v1/transactions?type=TRANSFER', { token: biz.token });
      expect(transfers.body.data.map((t: any) => t.id)).to.deep.equal([transferTx.id]);
      const refunds = await get('/cl/v1/transactions?type=REFUND', { token: biz.token });
      expect(refunds.body.data).to.deep.equal([]);
    });

    it('filters by created_from (inclusive) and created_to (exclusive)', async () => {
      const pivot = payoutTx.created_at;
      const from = await get(`/cl/v1/transactions?limit=100&created_from=${encodeURIComponent(pivot)}`, { token: biz.token });
      expect(from.status).to.equal(200);
      expect(from.body.data.map((t: any) => t.id)).to.deep.equal([withdrawalTx.id, transferTx.id, payoutTx.id]);
      const to = await get(`/cl/v1/transactions?limit=100&created_to=${encodeURIComponent(pivot)}`, { token: biz.token });
      expect(to.body.data.map((t: any) => t.id)).to.deep.equal([fundTx.id, topupTx.id]);
      const window = await get(
        `/cl/v1/transactions?created_from=${encodeURIComponent(fundTx.created_at)}&created_to=${encodeURIComponent(transferTx.created_at)}`,
        { token: biz.token },
      );
      expect(window.body.data.map((t: any) => t.id)).to.deep.equal([payoutTx.id, fundTx.id]);
    });

    it('filters by amount_min and amount_max (both inclusive), compared as decimals', async () => {
      const ids = async (query: string) => {
        const res = await get(`/cl/v1/transactions?limit=100&${query}`, { token: biz.token });
        expect(res.status, query).to.equal(200);
        return res.body.data.map((t: any) => t.id);
      };
      // Amounts: top-up 1000, fund 300, payout 200, transfer 50, withdrawal 20.
      expect(await ids('amount_min=200.00')).to.deep.equal([payoutTx.id, fundTx.id, topupTx.id]);
      expect(await ids('amount_max=50.00')).to.deep.equal([withdrawalTx.id, transferTx.id]);
      expect(await ids('amount_min=50.00&amount_max=300.00')).to.deep.equal([transferTx.id, payoutTx.id, fundTx.id]);
      // 1000 sorts before 300 as text: the comparison is numeric.
      expect(await ids('amount_min=999.99&amount_max=1000.00')).to.deep.equal([topupTx.id]);
      expect(await ids('amount_min=300.01&amount_max=999.99')).to.deep.equal([]);
      const inWallet = await get(`/cl/v1/wallets/${w2.id}/transactions?amount_max=50.00`, { token: biz.token });
      expect(inWallet.body.data.map((t: any) => t.id)).to.deep.equal([withdrawalTx.id, transferTx.id]);
      const core = await get('/transactions?amount_min=1000.00', { token: biz.token });
      expect(core.status).to.equal(200);
      expect(core.body.data.map((t: any) => t.id)).to.deep.equal([topupTx.id]);
    });

    it('400 VALIDATION_ERROR for an inverted amount range or an amount not in the documents\' form', async () => {
      const inverted = await get('/cl/v1/transactions?amount_min=300.00&amount_max=200.00', { token: biz.token });
      expectProblem(inverted, 400, 'VALIDATION_ERROR');
      expect(inverted.body.errors).to.deep.equal([{ pointer: '/query/amount_min', detail: 'must not be above amount_max' }]);
      for (const query of ['amount_min=-1.00', 'amount_max=1e3', 'amount_min=12.5', 'amount_max=NaN']) {
        const res = await get(`/cl/v1/transactions?${query}`, { token: biz.token });
        expectProblem(res, 400, 'VALIDATION_ERROR');
        expect(res.body.errors[0].pointer, query).to.match(/^\/query\/amount_(min|max)$/);
      }
    });

    it('pages with limit and cursor without duplicates or gaps', async () => {
      for (const limit of [1, 2, 3]) {
        const { ids, sizes } = await collect(biz.token, '/cl/v1/transactions', limit);
        expect(ids, `limit ${limit}`).to.deep.equal([...chronological].reverse().map((t) => t.id));
        expect(new Set(ids).size).to.equal(ids.length);
        expect(sizes.slice(0, -1).every((s) => s === limit), `limit ${limit}: ${sizes}`).to.equal(true);
        expect(sizes[sizes.length - 1]).to.be.within(1, limit);
      }
    });

    it('pages a filtered list with the filter kept', async () => {
      const { ids } = await collect(biz.token, `/cl/v1/transactions?created_from=${encodeURIComponent(fundTx.created_at)}`, 1);
      expect(ids).to.deep.equal([withdrawalTx.id, transferTx.id, payoutTx.id, fundTx.id]);
    });

    it('400 INVALID_CURSOR for a garbage cursor', async () => {
      for (const cursor of ['garbage', Buffer.from('not-a-date|not-an-id').toString('base64url')]) {
        const res = await get(`/cl/v1/transactions?cursor=${cursor}`, { token: biz.token });
        expect(res.status, cursor).to.equal(400);
        expect(res.body.code, cursor).to.equal('INVALID_CURSOR');
      }
    });

    it('400 VALIDATION_ERROR for type=BOGUS, a bad limit or a bad created_from', async () => {
      for (const query of ['type=BOGUS', 'limit=0', 'limit=101', 'created_from=yesterday']) {
        const res = await get(`/cl/v1/transactions?${query}`, { token: biz.token });
        expect(res.status, query).to.equal(400);
        expect(res.body.code, query).to.equal('VALIDATION_ERROR');
      }
    });
  });

  describe('listWalletTransactions', () => {
    it('lists only the transactions that debit or credit the wallet, newest first', async () => {
      const one = await get(`/cl/v1/wallets/${w1.id}/transactions`, { token: biz.token });
      expect(one.status).to.equal(200);
      expect(one.body.data.map((t: any) => t.id)).to.deep.equal([transferTx.id, fundTx.id]);
      const two = await get(`/cl/v1/wallets/${w2.id}/transactions`, { token: biz.token });
      expect(two.body.data.map((t: any) => t.id)).to.deep.equal([withdrawalTx.id, transferTx.id, payoutTx.id]);
      for (const [wallet, list] of [[w1, one], [w2, two]] as const) {
        for (const t of list.body.data) {
          expect([t.sender_account_number, t.receiver_account_number]).to.include(wallet.account_number);
        }
      }
    });

    it('is empty for a wallet without movements', async () => {
      const idle = await newWallet(biz.token);
      const res = await get(`/cl/v1/wallets/${idle.id}/transactions`, { token: biz.token });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ data: [], has_more: false, next_cursor: null });
    });

    it('filters by type and pages with a cursor', async () => {
      const transfers = await get(`/cl/v1/wallets/${w2.id}/transactions?type=TRANSFER`, { token: biz.token });
      expect(transfers.body.data.map((t: any) => t.id)).to.deep.equal([transferTx.id]);
      const { ids, sizes } = await collect(biz.token, `/cl/v1/wallets/${w2.id}/transactions`, 2);
      expect(ids).to.deep.equal([withdrawalTx.id, transferTx.id, payoutTx.id]);
      expect(sizes).to.deep.equal([2, 1]);
    });

    it('pages over both sides of the wallet (debits and credits merged) without duplicates or gaps', async () => {
      // w2: credited by the payout and the transfer, debited by the withdrawal.
      for (const limit of [1, 2, 3]) {
        const { ids } = await collect(biz.token, `/cl/v1/wallets/${w2.id}/transactions`, limit);
        expect(ids, `limit ${limit}`).to.deep.equal([withdrawalTx.id, transferTx.id, payoutTx.id]);
      }
      const { ids } = await collect(biz.token, `/cl/v1/wallets/${w2.id}/transactions?created_to=${encodeURIComponent(withdrawalTx.created_at)}`, 1);
      expect(ids).to.deep.equal([transferTx.id, payoutTx.id]);
    });

    it('404 WALLET_NOT_FOUND for an unknown wallet and for another business\'s wallet', async () => {
      const unknown = await get(`/cl/v1/wallets/${randomUUID()}/transactions`, { token: biz.token });
      expectProblem(unknown, 404, 'WALLET_NOT_FOUND');
      const foreign = await get(`/cl/v1/wallets/${w1.id}/transactions`, { token: other.token });
      expectProblem(foreign, 404, 'WALLET_NOT_FOUND');
    });
  });
});
