/**
 * The card transaction simulator (sandbox test helpers): an approved
 * authorization debits the card's wallet through the ledger (one CARD_PURCHASE
 * transaction), a declined one answers its reason and moves nothing; a balance
 * inquiry answers the wallet's available balance. The ledger's invariants hold
 * across card transactions, also concurrent ones; 404 outside the sandbox.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import type { RunningService } from '../../src/server.js';
import { expectProblem } from '../support/assertions.js';
import { changeStatus, completedStep, issuedCard } from '../support/cards.js';
import { get, post, request } from '../support/client.js';
import { activeCustomer } from '../support/customers.js';
import { credit, newBusiness, topup, type TestBusiness } from '../support/fixtures.js';
import { assertLedgerConsistent } from '../support/ledgerInvariants.js';
import { advanceClock } from '../support/sandbox.js';
import { extraServiceHooks, running } from '../support/service.js';

const authorize = (b: TestBusiness, body: Record<string, unknown>, baseUrl?: string) => post('/testhelpers/cards/authorizations', body, { token: b.token, baseUrl });
const inquire = (b: TestBusiness, body: Record<string, unknown>, baseUrl?: string) => post('/testhelpers/cards/balance-inquiries', body, { token: b.token, baseUrl });

/**
 * A business of the test's own with one ACTIVE customer (`holder`) and a card issued to
 * it; with `funds`, that much topped up and credited to the holder's wallet.
 */
async function ownCard(funds?: string): Promise<{ own: TestBusiness; holder: any; card: any }> {
  const own = await newBusiness();
  const holder = await activeCustomer(own);
  const { card } = await issuedCard(own, {}, holder);
  if (funds !== undefined) {
    await topup(own.token, funds);
    await credit(own.token, holder.wallet_id, funds);
  }
  return { own, holder, card };
}

describe('card transaction simulator', () => {
  let b: TestBusiness;
  let customer: any;
  let card: any;
  const balance = async () => (await get(`/cl/v1/wallets/${customer.wallet_id}/balance`, { token: b.token })).body.balance;

  before(async () => {
    b = await newBusiness();
    customer = await activeCustomer(b);
    card = (await issuedCard(b, {}, customer)).card;
    await topup(b.token, '1000.00');
    await credit(b.token, customer.wallet_id, '100.00');
  });

  it('an approved authorization debits the wallet with one CARD_PURCHASE transaction; the balance inquiry shows what is left', async () => {
    const res = await authorize(b, { card_id: card.id, amount: '25.5', merchant_name: 'Corner Coffee' });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ card_id: card.id, status: 'APPROVED', decline_reason: null, amount: '25.50', currency: 'SAR' });
    const txn = await get(`/cl/v1/transactions/${res.body.transaction_id}`, { token: b.token });
    expect(txn.body).to.include({ type: 'CARD_PURCHASE', amount: '25.50', reference: res.body.transaction_reference });
    expect(await balance()).to.equal('74.50');
    const inquiry = await inquire(b, { card_id: card.id });
    expect(inquiry.status, JSON.stringify(inquiry.body)).to.equal(200);
    expect(inquiry.body).to.deep.equal({ card_id: card.id, status: 'APPROVED', decline_reason: null, available_balance: '74.50', currency: 'SAR' });
    await assertLedgerConsistent(running().db, b.id);
  });

  it('declines for want of funds, a wrong PIN (or none set), a card not ACTIVE, an expired card: 200 with the reason, nothing moved', async function () {
    this.timeout(60_000);
    const before = await balance();
    const declined = async (body: Record<string, unknown>, reason: string, business = b) => {
      const res = await authorize(business, body);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ status: 'DECLINED', decline_reason: reason, transaction_id: null, transaction_reference: null });
    };
    await declined({ card_id: card.id, amount: '100000.00' }, 'INSUFFICIENT_FUNDS');
    await declined({ card_id: card.id, amount: '1.00', pin: '1234' }, 'INCORRECT_PIN');
    expect((await inquire(b, { card_id: card.id, pin: '1234' })).body).to.include({ status: 'DECLINED', decline_reason: 'INCORRECT_PIN', available_balance: null });
    await completedStep(b, card, 'pin', { pin: '4321' }, customer.mobile_number);
    await declined({ card_id: card.id, amount: '1.00', pin: '1234' }, 'INCORRECT_PIN');
    expect((await authorize(b, { card_id: card.id, amount: '1.00', pin: '4321' })).body.status).to.equal('APPROVED');
    const blocked = (await issuedCard(b, {}, customer)).card;
    await changeStatus(b, blocked.id, 'TEMPORARILY_BLOCKED');
    await declined({ card_id: blocked.id, amount: '1.00' }, 'CARD_NOT_ACTIVE');
    expect((await inquire(b, { card_id: blocked.id })).body).to.include({ decline_reason: 'CARD_NOT_ACTIVE' });
    expect(await balance()).to.equal(new Decimal(before).minus('1.00').toFixed(2));

    const { own, card: old } = await ownCard();
    for (let days = 0; days < 5 * 366 + 31; days += 30) await advanceClock(own, 30 * 24 * 3600);
    await declined({ card_id: old.id, amount: '1.00' }, 'CARD_EXPIRED', own);
    await assertLedgerConsistent(running().db, b.id);
  });

  it('three wrong PINs in a row block the PIN (PIN_TRIES_EXCEEDED, the right PIN too) until a new PIN is set through its code', async () => {
    const { own, holder, card: c } = await ownCard('100.00');
    await completedStep(own, c, 'pin', { pin: '4321' }, holder.mobile_number);
    const reasonOf = async (body: Record<string, unknown>, via = authorize) => {
      const res = await via(own, { card_id: c.id, ...(via === authorize ? { amount: '1.00' } : {}), ...body });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body.decline_reason;
    };
    const walletBalance = async () => (await get(`/cl/v1/wallets/${holder.wallet_id}/balance`, { token: own.token })).body.balance;

    // A right PIN between wrong ones starts the count again.
    expect(await reasonOf({ pin: '1111' })).to.equal('INCORRECT_PIN');
    expect(await reasonOf({ pin: '2222' })).to.equal('INCORRECT_PIN');
    expect(await reasonOf({ pin: '4321' })).to.equal(null);
    // Three in a row, a balance inquiry's among them: blocked.
    expect(await reasonOf({ pin: '1111' })).to.equal('INCORRECT_PIN');
    expect(await reasonOf({ pin: '2222' }, inquire)).to.equal('INCORRECT_PIN');
    const before = await walletBalance();
    expect(await reasonOf({ pin: '3333' })).to.equal('PIN_TRIES_EXCEEDED');
    expect(await reasonOf({ pin: '4321' })).to.equal('PIN_TRIES_EXCEEDED');
    expect(await reasonOf({ pin: '4321' }, inquire)).to.equal('PIN_TRIES_EXCEEDED');
    expect(await walletBalance(), 'nothing moved').to.equal(before);
    // Without a PIN (an online purchase) the blocked PIN is not asked for.
    expect(await reasonOf({})).to.equal(null);

    // A new PIN through setCardPin and its code unblocks it, with a fresh count.
    await completedStep(own, c, 'pin', { pin: '2580' }, holder.mobile_number);
    expect(await reasonOf({ pin: '2580' })).to.equal(null);
    expect(await reasonOf({ pin: '4321' })).to.equal('INCORRECT_PIN');
    expect(await reasonOf({ pin: '4321' })).to.equal('INCORRECT_PIN');
    expect(await reasonOf({ pin: '2580' })).to.equal(null);

    // Concurrent wrong PINs never count past the limit: two are INCORRECT_PIN, the rest blocked.
    const answers = await Promise.all(Array.from({ length: 6 }, () => authorize(own, { card_id: c.id, amount: '1.00', pin: '0000' })));
    expect(answers.map((a) => a.body.decline_reason).sort()).to.deep.equal([...Array(2).fill('INCORRECT_PIN'), ...Array(4).fill('PIN_TRIES_EXCEEDED')]);
    expect(await reasonOf({ pin: '2580' })).to.equal('PIN_TRIES_EXCEEDED');
    await assertLedgerConsistent(running().db, own.id);
  });

  it('concurrent authorizations never overdraw the wallet; the ledger stays consistent', async () => {
    const { own, card: c } = await ownCard('50.00');
    const answers = await Promise.all(Array.from({ length: 12 }, () => authorize(own, { card_id: c.id, amount: '10.00' })));
    expect(answers.map((a) => a.status)).to.deep.equal(Array(12).fill(200));
    expect(answers.filter((a) => a.body.status === 'APPROVED')).to.have.length(5);
    expect(answers.filter((a) => a.body.decline_reason === 'INSUFFICIENT_FUNDS')).to.have.length(7);
    expect((await inquire(own, { card_id: c.id })).body.available_balance).to.equal('0.00');
    await assertLedgerConsistent(running().db, own.id);
  });

  it('declines on a wallet that is not ACTIVE (ACCOUNT_NOT_ACTIVE)', async () => {
    const { own, holder, card: c } = await ownCard();
    const suspended = await request('PATCH', `/cl/v1/wallets/${holder.wallet_id}`, { token: own.token, body: { status: 'SUSPENDED' } });
    expect(suspended.status, JSON.stringify(suspended.body)).to.equal(200);
    expect((await authorize(own, { card_id: c.id, amount: '1.00' })).body).to.include({ status: 'DECLINED', decline_reason: 'ACCOUNT_NOT_ACTIVE' });
    expect((await inquire(own, { card_id: c.id })).body).to.include({ status: 'DECLINED', decline_reason: 'ACCOUNT_NOT_ACTIVE', available_balance: null });
  });

  it('404 CARD_NOT_FOUND for an unknown card and another business\'s', async () => {
    expectProblem(await authorize(b, { card_id: randomUUID(), amount: '1.00' }), 404, 'CARD_NOT_FOUND');
    expectProblem(await inquire(await newBusiness(), { card_id: card.id }), 404, 'CARD_NOT_FOUND');
  });

  describe('outside the sandbox (SANDBOX=false)', () => {
    let production: RunningService;
    extraServiceHooks({ sandbox: false }, (s) => (production = s));

    it('404 NOT_FOUND, and nothing moves', async () => {
      const before = await balance();
      expectProblem(await authorize(b, { card_id: card.id, amount: '1.00' }, production.url), 404, 'NOT_FOUND');
      expectProblem(await inquire(b, { card_id: card.id }, production.url), 404, 'NOT_FOUND');
      expect(await balance()).to.equal(before);
    });
  });
});
