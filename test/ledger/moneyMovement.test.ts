/**
 * Money movement of the closed loop (openapi/closed-loop.yaml, tag "Money
 * Movement" and the sandbox top-up): statuses, codes, amounts and the balances
 * a user sees, plus Idempotency-Key behaviour. Every group makes its own
 * business; balances are read through the public API only.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import { get, post, request, type ApiResponse } from '../support/client.js';
import { credit, fundedWallet, newBusiness, newWallet, topup, type TestBusiness } from '../support/fixtures.js';
import { expectProblem, expectValidation } from '../support/assertions.js';

/** Balance of a wallet via GET /wallets/{id}/balance. */
async function walletBalance(token: string, walletId: string): Promise<string> {
  const res = await get(`/cl/v1/wallets/${walletId}/balance`, { token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.balance;
}

/** Balance of the business's operational account via GET /businesses/{id}. */
async function operationalBalance(biz: TestBusiness): Promise<string> {
  const res = await get(`/cl/v1/businesses/${biz.id}`, { token: biz.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.operational_account.balance;
}

/** `a + b` of two money strings, with two decimals (b may be negative). */
const plus = (a: string, b: string): string => new Decimal(a).plus(b).toFixed(2);

/** Asserts a 201 answer of a SUCCESS transaction of `type` for `amount` (the body is shown when the status is not 201). */
function expectSucceeded(res: ApiResponse, type: string, amount: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  expect(res.body.type).to.equal(type);
  expect(res.body.status).to.equal('SUCCESS');
  expect(res.body.amount).to.equal(amount);
}

/** Suspends a wallet; asserts 200. */
async function suspend(token: string, walletId: string): Promise<void> {
  const res = await request('PATCH', `/cl/v1/wallets/${walletId}`, { token, body: { status: 'SUSPENDED' } });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.body.status).to.equal('SUSPENDED');
}

/** A fresh wallet that received `amount` through a payout; returns both. */
async function paidOutWallet(token: string, amount: string, body: Record<string, unknown> = {}): Promise<{ wallet: any; payout: any }> {
  const wallet = await newWallet(token, body);
  await topup(token, amount);
  const payout = await credit(token, wallet.id, amount, 'payouts');
  return { wallet, payout };
}

describe('money movement', () => {
  describe('createSandboxTopup', () => {
    let biz: TestBusiness;
    before(async () => {
      biz = await newBusiness();
    });

    it('201: a TOPUP of the operational account, whose balance rises', async () => {
      const before = await operationalBalance(biz);
      const res = await post('/cl/v1/testhelpers/topups', { amount: '125.5', external_reference: 'topup-1' }, { token: biz.token });
      expectSucceeded(res, 'TOPUP', '125.50');
      expect(res.body.receiver_account_number).to.equal(biz.operationalAccountNumber);
      expect(res.body.sender_account_number).to.match(/^8\d{11}$/);
      expect(res.body.external_reference).to.equal('topup-1');
      expect(before).to.equal('0.00');
      expect(await operationalBalance(biz)).to.equal('125.50');
    });

    it("400 VALIDATION_ERROR at /amount for amount '0'", async () => {
      const before = await operationalBalance(biz);
      expectValidation(await post('/cl/v1/testhelpers/topups', { amount: '0' }, { token: biz.token }), '/amount');
      expectValidation(await post('/cl/v1/testhelpers/topups', { amount: '0.00' }, { token: biz.token }), '/amount');
      expect(await operationalBalance(biz)).to.equal(before);
    });

    for (const amount of ['1.234', '-5', 5, '', 'abc', '1e3']) {
      it(`400 VALIDATION_ERROR at /amount for amount ${JSON.stringify(amount)}`, async () => {
        const before = await operationalBalance(biz);
        expectValidation(await post('/cl/v1/testhelpers/topups', { amount }, { token: biz.token }), '/amount');
        expect(await operationalBalance(biz)).to.equal(before);
      });
    }

    it('400 for a missing amount', async () => {
      expectValidation(await post('/cl/v1/testhelpers/topups', {}, { token: biz.token }), '/amount');
    });
  });

  for (const [operation, path, type] of [
    ['createFund', 'funds', 'FUND'],
    ['createPayout', 'payouts', 'PAYOUT'],
  ] as const) {
    describe(operation, () => {
      let biz: TestBusiness;
      before(async () => {
        biz = await newBusiness();
      });

      it(`201: a ${type} from the operational account to the wallet; both balances move`, async () => {
        const wallet = await newWallet(biz.token);
        await topup(biz.token, '300.00');
        const opBefore = await operationalBalance(biz);
        const res = await post(`/cl/v1/${path}`, { wallet_id: wallet.id, amount: '120.25', notes: 'n1', external_reference: `ref-${type}` }, { token: biz.token });
        expectSucceeded(res, type, '120.25');
        expect(res.body.currency).to.equal('SAR');
        expect(res.body.business_id).to.equal(biz.id);
        expect(res.body.sender_account_number).to.equal(biz.operationalAccountNumber);
        expect(res.body.receiver_account_number).to.equal(wallet.account_number);
        expect(res.body.destination_wallet_id).to.equal(wallet.id);
        expect(res.body.source_wallet_id).to.equal(null);
        expect(res.body.notes).to.equal('n1');
        expect(res.body.external_reference).to.equal(`ref-${type}`);
        expect(res.body.refunded_amount).to.equal('0.00');
        expect(res.body.reversal_transaction_id).to.equal(null);
        expect(res.body.entries).to.have.length(2);
        expect(await walletBalance(biz.token, wallet.id)).to.equal('120.25');
        expect(await operationalBalance(biz)).to.equal(plus(opBefore, '-120.25'));
      });

      it('422 INSUFFICIENT_FUNDS when the operational account lacks the money; nothing changes', async () => {
        const other = await newBusiness();
        const wallet = await newWallet(other.token);
        await topup(other.token, '50.00');
        const res = await post(`/cl/v1/${path}`, { wallet_id: wallet.id, amount: '50.01' }, { token: other.token });
        expectProblem(res, 422, 'INSUFFICIENT_FUNDS');
        expect(await operationalBalance(other)).to.equal('50.00');
        expect(await walletBalance(other.token, wallet.id)).to.equal('0.00');
      });

      it("404 WALLET_NOT_FOUND for another business's wallet (and for an unknown id)", async () => {
        const other = await newBusiness();
        const foreign = await newWallet(other.token);
        await topup(biz.token, '10.00');
        const opBefore = await operationalBalance(biz);
        expectProblem(await post(`/cl/v1/${path}`, { wallet_id: foreign.id, amount: '10.00' }, { token: biz.token }), 404, 'WALLET_NOT_FOUND');
        expectProblem(await post(`/cl/v1/${path}`, { wallet_id: randomUUID(), amount: '10.00' }, { token: biz.token }), 404, 'WALLET_NOT_FOUND');
        expect(await operationalBalance(biz)).to.equal(opBefore);
        expect(await walletBalance(other.token, foreign.id)).to.equal('0.00');
      });

      it('422 WALLET_NOT_ACTIVE for a SUSPENDED wallet; nothing changes', async () => {
        const wallet = await newWallet(biz.token);
        await suspend(biz.token, wallet.id);
        await topup(biz.token, '10.00');
        const opBefore = await operationalBalance(biz);
        expectProblem(await post(`/cl/v1/${path}`, { wallet_id: wallet.id, amount: '10.00' }, { token: biz.token }), 422, 'WALLET_NOT_ACTIVE');
        expect(await operationalBalance(biz)).to.equal(opBefore);
        expect(await walletBalance(biz.token, wallet.id)).to.equal('0.00');
      });

      it('400 VALIDATION_ERROR at /wallet_id when wallet_id is missing', async () => {
        expectValidation(await post(`/cl/v1/${path}`, { amount: '10.00' }, { token: biz.token }), '/wallet_id');
      });

      it('400 VALIDATION_ERROR for a bad amount and for an unknown field', async () => {
        const wallet = await newWallet(biz.token);
        expectValidation(await post(`/cl/v1/${path}`, { wallet_id: wallet.id, amount: '0' }, { token: biz.token }), '/amount');
        expectValidation(await post(`/cl/v1/${path}`, { wallet_id: wallet.id, amount: 10 }, { token: biz.token }), '/amount');
        expectValidation(await post(`/cl/v1/${path}`, { wallet_id: wallet.id, amount: '10.00', extra: 1 }, { token: biz.token }), '/extra');
      });
    });
  }

  describe('getPayout', () => {
    let biz: TestBusiness;
    before(async () => {
      biz = await newBusiness();
    });

    it('200: returns the payout', async () => {
      const { wallet, payout } = await paidOutWallet(biz.token, '40.00');
      const res = await get(`/cl/v1/payouts/${payout.id}`, { token: biz.token });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.equal(payout);
      expect(res.body.type).to.equal('PAYOUT');
      expect(res.body.destination_wallet_id).to.equal(wallet.id);
      expect(res.body.refunded_amount).to.equal('0.00');
    });

    it("404 PAYOUT_NOT_FOUND for a fund's id, a random id and another business's payout", async () => {
      const wallet = await newWallet(biz.token);
      await topup(biz.token, '10.00');
      const fund = await credit(biz.token, wallet.id, '10.00', 'funds');
      expectProblem(await get(`/cl/v1/payouts/${fund.id}`, { token: biz.token }), 404, 'PAYOUT_NOT_FOUND');
      expectProblem(await get(`/cl/v1/payouts/${randomUUID()}`, { token: biz.token }), 404, 'PAYOUT_NOT_FOUND');
      const other = await newBusiness();
      const { payout } = await paidOutWallet(other.token, '5.00');
      expectProblem(await get(`/cl/v1/payouts/${payout.id}`, { token: biz.token }), 404, 'PAYOUT_NOT_FOUND');
    });

    it('refunded_amount reflects the refunds linked to the payout', async () => {
      const { payout } = await paidOutWallet(biz.token, '100.00');
      expect((await post('/cl/v1/refunds', { original_transaction_id: payout.id, amount: '12.34' }, { token: biz.token })).status).to.equal(201);
      expect((await get(`/cl/v1/payouts/${payout.id}`, { token: biz.token })).body.refunded_amount).to.equal('12.34');
      expect((await post('/cl/v1/refunds', { original_transaction_id: payout.id, amount: '7.66' }, { token: biz.token })).status).to.equal(201);
      const res = await get(`/cl/v1/payouts/${payout.id}`, { token: biz.token });
      expect(res.status).to.equal(200);
      expect(res.body.refunded_amount).to.equal('20.00');
      expect(res.body.amount).to.equal('100.00');
    });
  });

  describe('createTransfer', () => {
    let biz: TestBusiness;
    before(async () => {
      biz = await newBusiness();
    });

    it('201: a TRANSFER moves money from the source wallet to the destination wallet', async () => {
      const source = await fundedWallet(biz.token, '100.00');
      const destination = await newWallet(biz.token);
      const opBefore = await operationalBalance(biz);
      const res = await post(
        '/cl/v1/transfers',
        { source_wallet_id: source.id, destination_wallet_id: destination.id, amount: '30.5' },
        { token: biz.token },
      );
      expectSucceeded(res, 'TRANSFER', '30.50');
      expect(res.body.sender_account_number).to.equal(source.account_number);
      expect(res.body.receiver_account_number).to.equal(destination.account_number);
      expect(res.body.source_wallet_id).to.equal(source.id);
      expect(res.body.destination_wallet_id).to.equal(destination.id);
      expect(await walletBalance(biz.token, source.id)).to.equal('69.50');
      expect(await walletBalance(biz.token, destination.id)).to.equal('30.50');
      expect(await operationalBalance(biz)).to.equal(opBefore);
    });

    it('422 INSUFFICIENT_FUNDS beyond the balance when can_overdraft is false; nothing changes', async () => {
      const source = await fundedWallet(biz.token, '20.00');
      const destination = await newWallet(biz.token);
      const res = await post(
        '/cl/v1/transfers',
        { source_wallet_id: source.id, destination_wallet_id: destination.id, amount: '20.01' },
        { token: biz.token },
      );
      expectProblem(res, 422, 'INSUFFICIENT_FUNDS');
      expect(await walletBalance(biz.token, source.id)).to.equal('20.00');
      expect(await walletBalance(biz.token, destination.id)).to.equal('0.00');
    });

    it('a wallet with can_overdraft goes below zero', async () => {
      const source = await fundedWallet(biz.token, '10.00', { can_overdraft: true });
      const destination = await newWallet(biz.token);
      const res = await post(
        '/cl/v1/transfers',
        { source_wallet_id: source.id, destination_wallet_id: destination.id, amount: '25.75' },
        { token: biz.token },
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(await walletBalance(biz.token, source.id)).to.equal('-15.75');
      expect(await walletBalance(biz.token, destination.id)).to.equal('25.75');
    });

    it('422 SAME_WALLET_TRANSFER when source and destination are the same wallet', async () => {
      const wallet = await fundedWallet(biz.token, '10.00');
      const res = await post('/cl/v1/transfers', { source_wallet_id: wallet.id, destination_wallet_id: wallet.id, amount: '1.00' }, { token: biz.token });
      expectProblem(res, 422, 'SAME_WALLET_TRANSFER');
      expect(await walletBalance(biz.token, wallet.id)).to.equal('10.00');
    });

    it("404 WALLET_NOT_FOUND for another business's destination wallet; nothing changes", async () => {
      const source = await fundedWallet(biz.token, '10.00');
      const other = await newBusiness();
      const foreign = await newWallet(other.token);
      const res = await post('/cl/v1/transfers', { source_wallet_id: source.id, destination_wallet_id: foreign.id, amount: '1.00' }, { token: biz.token });
      expectProblem(res, 404, 'WALLET_NOT_FOUND');
      expect(await walletBalance(biz.token, source.id)).to.equal('10.00');
      expect(await walletBalance(other.token, foreign.id)).to.equal('0.00');
    });

    it('422 WALLET_NOT_ACTIVE when the destination wallet is SUSPENDED', async () => {
      const source = await fundedWallet(biz.token, '10.00');
      const destination = await newWallet(biz.token);
      await suspend(biz.token, destination.id);
      const res = await post('/cl/v1/transfers', { source_wallet_id: source.id, destination_wallet_id: destination.id, amount: '1.00' }, { token: biz.token });
      expectProblem(res, 422, 'WALLET_NOT_ACTIVE');
      expect(await walletBalance(biz.token, source.id)).to.equal('10.00');
    });
  });

  describe('createWithdrawal', () => {
    let biz: TestBusiness;
    before(async () => {
      biz = await newBusiness();
    });

    it('201: a WITHDRAWAL moves money from the wallet to the operational account', async () => {
      const wallet = await fundedWallet(biz.token, '80.00');
      const opBefore = await operationalBalance(biz);
      const res = await post('/cl/v1/withdrawals', { wallet_id: wallet.id, amount: '30.00' }, { token: biz.token });
      expectSucceeded(res, 'WITHDRAWAL', '30.00');
      expect(res.body.sender_account_number).to.equal(wallet.account_number);
      expect(res.body.receiver_account_number).to.equal(biz.operationalAccountNumber);
      expect(res.body.source_wallet_id).to.equal(wallet.id);
      expect(res.body.destination_wallet_id).to.equal(null);
      expect(await walletBalance(biz.token, wallet.id)).to.equal('50.00');
      expect(await operationalBalance(biz)).to.equal(plus(opBefore, '30'));
    });

    it('422 INSUFFICIENT_FUNDS beyond the wallet balance; nothing changes', async () => {
      const wallet = await fundedWallet(biz.token, '5.00');
      const opBefore = await operationalBalance(biz);
      expectProblem(await post('/cl/v1/withdrawals', { wallet_id: wallet.id, amount: '5.01' }, { token: biz.token }), 422, 'INSUFFICIENT_FUNDS');
      expect(await walletBalance(biz.token, wallet.id)).to.equal('5.00');
      expect(await operationalBalance(biz)).to.equal(opBefore);
    });

    it("404 WALLET_NOT_FOUND for another business's wallet", async () => {
      const other = await newBusiness();
      const foreign = await fundedWallet(other.token, '5.00');
      expectProblem(await post('/cl/v1/withdrawals', { wallet_id: foreign.id, amount: '1.00' }, { token: biz.token }), 404, 'WALLET_NOT_FOUND');
      expect(await walletBalance(other.token, foreign.id)).to.equal('5.00');
    });
  });

  describe('createRefund', () => {
    let biz: TestBusiness;
    before(async () => {
      biz = await newBusiness();
    });

    it('201 linked to a payout: SUCCESS, accounts, original_* and the running total over partial refunds', async () => {
      const { wallet, payout } = await paidOutWallet(biz.token, '100.00');
      const opBefore = await operationalBalance(biz);

      const first = await post(
        '/cl/v1/refunds',
        { original_transaction_id: payout.id, amount: '30', external_reference: 'refund-1', notes: 'first part' },
        { token: biz.token },
      );
      expect(first.status, JSON.stringify(first.body)).to.equal(201);
      expect(first.body.status).to.equal('SUCCESS');
      expect(first.body.amount).to.equal('30.00');
      expect(first.body.currency).to.equal('SAR');
      expect(first.body.sender_account_number).to.equal(wallet.account_number);
      expect(first.body.receiver_account_number).to.equal(biz.operationalAccountNumber);
      expect(first.body.original_transaction_id).to.equal(payout.id);
      expect(first.body.original_transaction_reference).to.equal(payout.reference);
      expect(first.body.original_transaction_amount).to.equal('100.00');
      expect(first.body.total_refunded_amount).to.equal('30.00');
      expect(first.body.external_reference).to.equal('refund-1');
      expect(first.body.notes).to.equal('first part');

      const second = await post('/cl/v1/refunds', { original_transaction_id: payout.id, amount: '50.00' }, { token: biz.token });
      expect(second.status, JSON.stringify(second.body)).to.equal(201);
      expect(second.body.amount).to.equal('50.00');
      expect(second.body.total_refunded_amount).to.equal('80.00');
      expect(second.body.id).to.not.equal(first.body.id);

      expect(await walletBalance(biz.token, wallet.id)).to.equal('20.00');
      expect(await operationalBalance(biz)).to.equal(plus(opBefore, '80'));

      const tx = await get(`/cl/v1/transactions/${first.body.id}`, { token: biz.token });
      expect(tx.status).to.equal(200);
      expect(tx.body.type).to.equal('REFUND');
      expect(tx.body.original_transaction_id).to.equal(payout.id);
    });

    it('a refund may take the payout exactly to its amount', async () => {
      const { wallet, payout } = await paidOutWallet(biz.token, '10.00');
      expect((await post('/cl/v1/refunds', { original_transaction_id: payout.id, amount: '4.00' }, { token: biz.token })).status).to.equal(201);
      const res = await post('/cl/v1/refunds', { original_transaction_id: payout.id, amount: '6.00' }, { token: biz.token });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body.total_refunded_amount).to.equal('10.00');
      expect(await walletBalance(biz.token, wallet.id)).to.equal('0.00');
    });

    it('422 REFUND_EXCEEDS_ORIGINAL beyond the remainder; nothing changes', async () => {
      const { wallet, payout } = await paidOutWallet(biz.token, '100.00');
      expect((await post('/cl/v1/refunds', { original_transaction_id: payout.id, amount: '30.00' }, { token: biz.token })).status).to.equal(201);
      const walletBefore = await walletBalance(biz.token, wallet.id);
      const opBefore = await operationalBalance(biz);
      const res = await post('/cl/v1/refunds', { original_transaction_id: payout.id, amount: '70.01' }, { token: biz.token });
      expectProblem(res, 422, 'REFUND_EXCEEDS_ORIGINAL');
      expect(await walletBalance(biz.token, wallet.id)).to.equal(walletBefore);
      expect(await operationalBalance(biz)).to.equal(opBefore);
      expect((await get(`/cl/v1/payouts/${payout.id}`, { token: biz.token })).body.refunded_amount).to.equal('30.00');
    });

    it('422 TRANSACTION_NOT_REFUNDABLE for a FUND; nothing changes', async () => {
      const wallet = await newWallet(biz.token);
      await topup(biz.token, '20.00');
      const fund = await credit(biz.token, wallet.id, '20.00', 'funds');
      const opBefore = await operationalBalance(biz);
      const res = await post('/cl/v1/refunds', { original_transaction_id: fund.id, amount: '5.00' }, { token: biz.token });
      expectProblem(res, 422, 'TRANSACTION_NOT_REFUNDABLE');
      expect(await walletBalance(biz.token, wallet.id)).to.equal('20.00');
      expect(await operationalBalance(biz)).to.equal(opBefore);
    });

    it('422 TRANSACTION_NOT_REFUNDABLE for a reversed payout', async () => {
      const { wallet, payout } = await paidOutWallet(biz.token, '20.00');
      const reversal = await post('/cl/v1/reversals', { original_transaction_id: payout.id }, { token: biz.token });
      expect(reversal.status, JSON.stringify(reversal.body)).to.equal(201);
      const walletBefore = await walletBalance(biz.token, wallet.id);
      const res = await post('/cl/v1/refunds', { original_transaction_id: payout.id, amount: '5.00', wallet_id: wallet.id }, { token: biz.token });
      expectProblem(res, 422, 'TRANSACTION_NOT_REFUNDABLE');
      expect(await walletBalance(biz.token, wallet.id)).to.equal(walletBefore);
    });

    it('201 without original_transaction_id but with wallet_id: original_* and total_refunded_amount are null', async () => {
      const wallet = await fundedWallet(biz.token, '15.00');
      const opBefore = await operationalBalance(biz);
      const res = await post('/cl/v1/refunds', { wallet_id: wallet.id, amount: '5.00' }, { token: biz.token });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body.status).to.equal('SUCCESS');
      expect(res.body.amount).to.equal('5.00');
      expect(res.body.sender_account_number).to.equal(wallet.account_number);
      expect(res.body.receiver_account_number).to.equal(biz.operationalAccountNumber);
      expect(res.body.original_transaction_id).to.equal(null);
      expect(res.body.original_transaction_reference).to.equal(null);
      expect(res.body.original_transaction_amount).to.equal(null);
      expect(res.body.total_refunded_amount).to.equal(null);
      expect(await walletBalance(biz.token, wallet.id)).to.equal('10.00');
      expect(await operationalBalance(biz)).to.equal(plus(opBefore, '5'));
    });

    it('400 VALIDATION_ERROR at /wallet_id with neither original_transaction_id nor wallet_id', async () => {
      expectValidation(await post('/cl/v1/refunds', { amount: '5.00' }, { token: biz.token }), '/wallet_id');
    });

    it('404 TRANSACTION_NOT_FOUND for an unknown original and for another business\'s payout', async () => {
      expectProblem(await post('/cl/v1/refunds', { original_transaction_id: randomUUID(), amount: '5.00' }, { token: biz.token }), 404, 'TRANSACTION_NOT_FOUND');
      const other = await newBusiness();
      const { payout } = await paidOutWallet(other.token, '5.00');
      expectProblem(await post('/cl/v1/refunds', { original_transaction_id: payout.id, amount: '1.00' }, { token: biz.token }), 404, 'TRANSACTION_NOT_FOUND');
      expect((await get(`/cl/v1/payouts/${payout.id}`, { token: other.token })).body.refunded_amount).to.equal('0.00');
    });

    it('404 WALLET_NOT_FOUND for an unknown wallet_id; the payout total is unchanged', async () => {
      const { payout } = await paidOutWallet(biz.token, '10.00');
      const res = await post('/cl/v1/refunds', { original_transaction_id: payout.id, wallet_id: randomUUID(), amount: '1.00' }, { token: biz.token });
      expectProblem(res, 404, 'WALLET_NOT_FOUND');
      expect((await get(`/cl/v1/payouts/${payout.id}`, { token: biz.token })).body.refunded_amount).to.equal('0.00');
    });

    it('422 INSUFFICIENT_FUNDS when the wallet lacks the money; the payout total is unchanged', async () => {
      const { wallet, payout } = await paidOutWallet(biz.token, '10.00');
      const sink = await newWallet(biz.token);
      expect((await post('/cl/v1/transfers', { source_wallet_id: wallet.id, destination_wallet_id: sink.id, amount: '8.00' }, { token: biz.token })).status).to.equal(201);
      const res = await post('/cl/v1/refunds', { original_transaction_id: payout.id, amount: '5.00' }, { token: biz.token });
      expectProblem(res, 422, 'INSUFFICIENT_FUNDS');
      expect(await walletBalance(biz.token, wallet.id)).to.equal('2.00');
      expect((await get(`/cl/v1/payouts/${payout.id}`, { token: biz.token })).body.refunded_amount).to.equal('0.00');
    });

    it('a refund from another wallet linked to the same payout counts toward the same total', async () => {
      const { wallet, payout } = await paidOutWallet(biz.token, '100.00');
      const second = await fundedWallet(biz.token, '60.00');
      const first = await post('/cl/v1/refunds', { original_transaction_id: payout.id, amount: '40.00' }, { token: biz.token });
      expect(first.status, JSON.stringify(first.body)).to.equal(201);
      expect(first.body.total_refunded_amount).to.equal('40.00');

      const other = await post('/cl/v1/refunds', { original_transaction_id: payout.id, wallet_id: second.id, amount: '50.00' }, { token: biz.token });
      expect(other.status, JSON.stringify(other.body)).to.equal(201);
      expect(other.body.sender_account_number).to.equal(second.account_number);
      expect(other.body.original_transaction_id).to.equal(payout.id);
      expect(other.body.total_refunded_amount).to.equal('90.00');
      expect(await walletBalance(biz.token, wallet.id)).to.equal('60.00');
      expect(await walletBalance(biz.token, second.id)).to.equal('10.00');

      expectProblem(await post('/cl/v1/refunds', { original_transaction_id: payout.id, wallet_id: second.id, amount: '10.01' }, { token: biz.token }), 422, 'REFUND_EXCEEDS_ORIGINAL');
      expect((await get(`/cl/v1/payouts/${payout.id}`, { token: biz.token })).body.refunded_amount).to.equal('90.00');
    });

    it('concurrent refunds never exceed the payout', async () => {
      const { wallet, payout } = await paidOutWallet(biz.token, '100.00');
      const results = await Promise.all(
        Array.from({ length: 10 }, () => post('/cl/v1/refunds', { original_transaction_id: payout.id, amount: '30.00' }, { token: biz.token })),
      );
      const created = results.filter((r) => r.status === 201);
      expect(created, JSON.stringify(results.map((r) => r.body))).to.have.length(3);
      for (const r of results.filter((x) => x.status !== 201)) expectProblem(r, 422, 'REFUND_EXCEEDS_ORIGINAL');
      expect(created.map((r) => r.body.total_refunded_amount).sort()).to.deep.equal(['30.00', '60.00', '90.00']);
      expect(await walletBalance(biz.token, wallet.id)).to.equal('10.00');
      expect((await get(`/cl/v1/payouts/${payout.id}`, { token: biz.token })).body.refunded_amount).to.equal('90.00');
    });
  });

  describe('createReversal', () => {
    let biz: TestBusiness;
    before(async () => {
      biz = await newBusiness();
    });

    it('201: reversing a fund restores both balances and links both transactions', async () => {
      const wallet = await newWallet(biz.token);
      await topup(biz.token, '70.00');
      const opBefore = await operationalBalance(biz);
      const fund = await credit(biz.token, wallet.id, '70.00', 'funds');
      expect(await walletBalance(biz.token, wallet.id)).to.equal('70.00');

      const res = await post('/cl/v1/reversals', { original_transaction_id: fund.id, notes: 'wrong wallet' }, { token: biz.token });
      expectSucceeded(res, 'REVERSAL', '70.00');
      expect(res.body.original_transaction_id).to.equal(fund.id);
      expect(res.body.sender_account_number).to.equal(wallet.account_number);
      expect(res.body.receiver_account_number).to.equal(biz.operationalAccountNumber);
      expect(res.body.notes).to.equal('wrong wallet');
      expect(await walletBalance(biz.token, wallet.id)).to.equal('0.00');
      expect(await operationalBalance(biz)).to.equal(opBefore);

      const original = await get(`/cl/v1/transactions/${fund.id}`, { token: biz.token });
      expect(original.status).to.equal(200);
      expect(original.body.reversal_transaction_id).to.equal(res.body.id);
    });

    it('reversing a transfer and a withdrawal restores the balances', async () => {
      const a = await fundedWallet(biz.token, '50.00');
      const b = await newWallet(biz.token);
      const transfer = await post('/cl/v1/transfers', { source_wallet_id: a.id, destination_wallet_id: b.id, amount: '20.00' }, { token: biz.token });
      expect(transfer.status).to.equal(201);
      expect((await post('/cl/v1/reversals', { original_transaction_id: transfer.body.id }, { token: biz.token })).status).to.equal(201);
      expect(await walletBalance(biz.token, a.id)).to.equal('50.00');
      expect(await walletBalance(biz.token, b.id)).to.equal('0.00');

      const opBefore = await operationalBalance(biz);
      const withdrawal = await post('/cl/v1/withdrawals', { wallet_id: a.id, amount: '15.00' }, { token: biz.token });
      expect(withdrawal.status).to.equal(201);
      const reversal = await post('/cl/v1/reversals', { original_transaction_id: withdrawal.body.id }, { token: biz.token });
      expect(reversal.status, JSON.stringify(reversal.body)).to.equal(201);
      expect(await walletBalance(biz.token, a.id)).to.equal('50.00');
      expect(await operationalBalance(biz)).to.equal(opBefore);
    });

    it('409 TRANSACTION_ALREADY_REVERSED for a second reversal; nothing changes', async () => {
      const wallet = await newWallet(biz.token);
      await topup(biz.token, '10.00');
      const fund = await credit(biz.token, wallet.id, '10.00', 'funds');
      expect((await post('/cl/v1/reversals', { original_transaction_id: fund.id }, { token: biz.token })).status).to.equal(201);
      const opBefore = await operationalBalance(biz);
      expectProblem(await post('/cl/v1/reversals', { original_transaction_id: fund.id }, { token: biz.token }), 409, 'TRANSACTION_ALREADY_REVERSED');
      expect(await operationalBalance(biz)).to.equal(opBefore);
      expect(await walletBalance(biz.token, wallet.id)).to.equal('0.00');
    });

    it('422 TRANSACTION_NOT_REVERSIBLE for a TOPUP, a REFUND and a REVERSAL', async () => {
      const top = await topup(biz.token, '10.00');
      const opBefore = await operationalBalance(biz);
      expectProblem(await post('/cl/v1/reversals', { original_transaction_id: top.id }, { token: biz.token }), 422, 'TRANSACTION_NOT_REVERSIBLE');
      expect(await operationalBalance(biz)).to.equal(opBefore);

      const wallet = await fundedWallet(biz.token, '10.00');
      const refund = await post('/cl/v1/refunds', { wallet_id: wallet.id, amount: '2.00' }, { token: biz.token });
      expect(refund.status).to.equal(201);
      expectProblem(await post('/cl/v1/reversals', { original_transaction_id: refund.body.id }, { token: biz.token }), 422, 'TRANSACTION_NOT_REVERSIBLE');
      expect(await walletBalance(biz.token, wallet.id)).to.equal('8.00');

      await topup(biz.token, '1.00');
      const fund = await credit(biz.token, wallet.id, '1.00', 'funds');
      const reversal = await post('/cl/v1/reversals', { original_transaction_id: fund.id }, { token: biz.token });
      expect(reversal.status, JSON.stringify(reversal.body)).to.equal(201);
      const walletBefore = await walletBalance(biz.token, wallet.id);
      expectProblem(await post('/cl/v1/reversals', { original_transaction_id: reversal.body.id }, { token: biz.token }), 422, 'TRANSACTION_NOT_REVERSIBLE');
      expect(await walletBalance(biz.token, wallet.id)).to.equal(walletBefore);
    });

    it('422 TRANSACTION_NOT_REVERSIBLE for a payout with refunds', async () => {
      const { wallet, payout } = await paidOutWallet(biz.token, '50.00');
      expect((await post('/cl/v1/refunds', { original_transaction_id: payout.id, amount: '10.00' }, { token: biz.token })).status).to.equal(201);
      expectProblem(await post('/cl/v1/reversals', { original_transaction_id: payout.id }, { token: biz.token }), 422, 'TRANSACTION_NOT_REVERSIBLE');
      expect(await walletBalance(biz.token, wallet.id)).to.equal('40.00');
      const after = await get(`/cl/v1/payouts/${payout.id}`, { token: biz.token });
      expect(after.body.reversal_transaction_id).to.equal(null);
      expect(after.body.refunded_amount).to.equal('10.00');
    });

    it('422 INSUFFICIENT_FUNDS for a fund whose wallet already spent the money; nothing changes', async () => {
      const wallet = await newWallet(biz.token);
      const sink = await newWallet(biz.token);
      await topup(biz.token, '40.00');
      const fund = await credit(biz.token, wallet.id, '40.00', 'funds');
      expect((await post('/cl/v1/transfers', { source_wallet_id: wallet.id, destination_wallet_id: sink.id, amount: '25.00' }, { token: biz.token })).status).to.equal(201);
      const opBefore = await operationalBalance(biz);
      expectProblem(await post('/cl/v1/reversals', { original_transaction_id: fund.id }, { token: biz.token }), 422, 'INSUFFICIENT_FUNDS');
      expect(await walletBalance(biz.token, wallet.id)).to.equal('15.00');
      expect(await operationalBalance(biz)).to.equal(opBefore);
      expect((await get(`/cl/v1/transactions/${fund.id}`, { token: biz.token })).body.reversal_transaction_id).to.equal(null);
    });

    it("404 TRANSACTION_NOT_FOUND for an unknown id and another business's fund", async () => {
      expectProblem(await post('/cl/v1/reversals', { original_transaction_id: randomUUID() }, { token: biz.token }), 404, 'TRANSACTION_NOT_FOUND');
      const other = await newBusiness();
      const wallet = await newWallet(other.token);
      await topup(other.token, '5.00');
      const fund = await credit(other.token, wallet.id, '5.00', 'funds');
      expectProblem(await post('/cl/v1/reversals', { original_transaction_id: fund.id }, { token: biz.token }), 404, 'TRANSACTION_NOT_FOUND');
      expect(await walletBalance(other.token, wallet.id)).to.equal('5.00');
    });
  });

  describe('idempotency (Idempotency-Key)', () => {
    let biz: TestBusiness;
    before(async () => {
      biz = await newBusiness();
    });

    it('a replay with the same key and body returns the same status and body, marked replayed; one effect', async () => {
      const wallet = await newWallet(biz.token);
      await topup(biz.token, '100.00');
      const key = randomUUID();
      const body = { wallet_id: wallet.id, amount: '25.00' };
      const first = await post('/cl/v1/funds', body, { token: biz.token, idempotencyKey: key });
      expect(first.status, JSON.stringify(first.body)).to.equal(201);
      expect(first.headers.get('idempotent-replayed')).to.equal(null);
      const second = await post('/cl/v1/funds', body, { token: biz.token, idempotencyKey: key });
      expect(second.status).to.equal(201);
      expect(second.headers.get('idempotent-replayed')).to.equal('true');
      expect(second.body).to.deep.equal(first.body);
      expect(await walletBalance(biz.token, wallet.id)).to.equal('25.00');
    });

    it('the same key with the same body in another key order is a replay', async () => {
      const wallet = await newWallet(biz.token);
      await topup(biz.token, '10.00');
      const key = randomUUID();
      const first = await post('/cl/v1/funds', { wallet_id: wallet.id, amount: '10.00' }, { token: biz.token, idempotencyKey: key });
      expect(first.status).to.equal(201);
      const second = await post('/cl/v1/funds', { amount: '10.00', wallet_id: wallet.id }, { token: biz.token, idempotencyKey: key });
      expect(second.status).to.equal(201);
      expect(second.headers.get('idempotent-replayed')).to.equal('true');
      expect(second.body).to.deep.equal(first.body);
      expect(await walletBalance(biz.token, wallet.id)).to.equal('10.00');
    });

    it('replays a refund (RefundResponse) with its running total unchanged', async () => {
      const { wallet, payout } = await paidOutWallet(biz.token, '50.00');
      const key = randomUUID();
      const body = { original_transaction_id: payout.id, amount: '20.00' };
      const first = await post('/cl/v1/refunds', body, { token: biz.token, idempotencyKey: key });
      expect(first.status, JSON.stringify(first.body)).to.equal(201);
      const second = await post('/cl/v1/refunds', body, { token: biz.token, idempotencyKey: key });
      expect(second.status).to.equal(201);
      expect(second.headers.get('idempotent-replayed')).to.equal('true');
      expect(second.body).to.deep.equal(first.body);
      expect(await walletBalance(biz.token, wallet.id)).to.equal('30.00');
      expect((await get(`/cl/v1/payouts/${payout.id}`, { token: biz.token })).body.refunded_amount).to.equal('20.00');
    });

    it('422 IDEMPOTENCY_KEY_REUSED for the same key with a different body; no second effect', async () => {
      const wallet = await newWallet(biz.token);
      await topup(biz.token, '100.00');
      const key = randomUUID();
      expect((await post('/cl/v1/funds', { wallet_id: wallet.id, amount: '10.00' }, { token: biz.token, idempotencyKey: key })).status).to.equal(201);
      const res = await post('/cl/v1/funds', { wallet_id: wallet.id, amount: '11.00' }, { token: biz.token, idempotencyKey: key });
      expectProblem(res, 422, 'IDEMPOTENCY_KEY_REUSED');
      expect(await walletBalance(biz.token, wallet.id)).to.equal('10.00');
    });

    it('a failed request (422 INSUFFICIENT_FUNDS) replays the same 422 body, even once it could succeed', async () => {
      const source = await fundedWallet(biz.token, '5.00');
      const destination = await newWallet(biz.token);
      const key = randomUUID();
      const body = { source_wallet_id: source.id, destination_wallet_id: destination.id, amount: '8.00' };
      const first = await post('/cl/v1/transfers', body, { token: biz.token, idempotencyKey: key });
      expectProblem(first, 422, 'INSUFFICIENT_FUNDS');
      await topup(biz.token, '5.00');
      await credit(biz.token, source.id, '5.00', 'funds');
      const second = await post('/cl/v1/transfers', body, { token: biz.token, idempotencyKey: key });
      expect(second.status).to.equal(422);
      expect(second.headers.get('idempotent-replayed')).to.equal('true');
      expect(second.body).to.deep.equal(first.body);
      expect(await walletBalance(biz.token, source.id)).to.equal('10.00');
      expect(await walletBalance(biz.token, destination.id)).to.equal('0.00');
    });

    it('keys are scoped per business: the same key used by another business runs normally', async () => {
      const other = await newBusiness();
      const key = randomUUID();
      const mine = await newWallet(biz.token);
      const theirs = await newWallet(other.token);
      await topup(biz.token, '10.00');
      await topup(other.token, '10.00');
      const a = await post('/cl/v1/payouts', { wallet_id: mine.id, amount: '3.00' }, { token: biz.token, idempotencyKey: key });
      expect(a.status, JSON.stringify(a.body)).to.equal(201);
      const b = await post('/cl/v1/payouts', { wallet_id: theirs.id, amount: '4.00' }, { token: other.token, idempotencyKey: key });
      expect(b.status, JSON.stringify(b.body)).to.equal(201);
      expect(b.headers.get('idempotent-replayed')).to.equal(null);
      expect(b.body.id).to.not.equal(a.body.id);
      expect(await walletBalance(biz.token, mine.id)).to.equal('3.00');
      expect(await walletBalance(other.token, theirs.id)).to.equal('4.00');
      expect(await operationalBalance(other)).to.equal('6.00');
    });

    it('50 concurrent identical requests with one key produce exactly one effect', async function () {
      this.timeout(60_000);
      const source = await fundedWallet(biz.token, '100.00');
      const destination = await newWallet(biz.token);
      const key = randomUUID();
      const body = { source_wallet_id: source.id, destination_wallet_id: destination.id, amount: '1.00' };
      const results = await Promise.all(
        Array.from({ length: 50 }, () => post('/cl/v1/transfers', body, { token: biz.token, idempotencyKey: key })),
      );
      const created = results.filter((r) => r.status === 201);
      const inUse = results.filter((r) => r.status !== 201);
      expect(created.length, 'at least one 201').to.be.greaterThan(0);
      for (const r of inUse) {
        expectProblem(r, 409, 'IDEMPOTENCY_KEY_IN_USE');
        expect(r.headers.get('retry-after'), 'Retry-After').to.match(/^\d+$/);
      }
      expect(new Set(created.map((r) => r.body.id)).size).to.equal(1);
      expect(await walletBalance(biz.token, source.id)).to.equal('99.00');
      expect(await walletBalance(biz.token, destination.id)).to.equal('1.00');

      const replay = await post('/cl/v1/transfers', body, { token: biz.token, idempotencyKey: key });
      expect(replay.status).to.equal(201);
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
      expect(replay.body.id).to.equal(created[0].body.id);
      expect(await walletBalance(biz.token, source.id)).to.equal('99.00');
    });
  });
});
