/**
 * search (GET /search): each type of object found by each of its documented fields, whole,
 * by prefix and by part, best first; another business's objects never; a type left out for
 * a caller without its read's permission; a `q` too short or with a control character, or a
 * `limit` too big, is 400; a caller without `business:read` is 403.
 */
import { expect } from 'chai';
import { expectProblem } from '../support/assertions.js';
import { get, post } from '../support/client.js';
import { fundedWallet, topup, uniq } from '../support/fixtures.js';
import { issuedCard } from '../support/cards.js';
import { activeCustomer } from '../support/customers.js';
import { createPayout, payoutBusiness, sendBulkPayout, type PayoutBusiness } from '../support/payouts.js';

interface Hit { type: string; id: string; label: string; matched_field: string; match: string; customer_id?: string }

async function search(token: string, q: string, limit?: number): Promise<Hit[]> {
  const res = await get(`/search?q=${encodeURIComponent(q)}${limit ? `&limit=${limit}` : ''}`, { token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.data;
}

/** Asserts that searching `q` finds the `type` object `id` by `field` as `match`. */
async function expectFound(token: string, q: string, type: string, id: string, field: string, match: string): Promise<Hit> {
  const hits = await search(token, q);
  const hit = hits.find((h) => h.type === type && h.id === id);
  expect(hit, `${q} finds ${type} ${id} in ${JSON.stringify(hits)}`).to.not.equal(undefined);
  expect({ field: hit!.matched_field, match: hit!.match }, `${q}: how ${type} matched`).to.deep.equal({ field, match });
  return hit!;
}

describe('search', function () {
  this.timeout(120_000);
  let made: PayoutBusiness;
  let other: PayoutBusiness;
  let customer: any;
  let payout: any;
  let bulkId: string;
  let wallet: any;
  let fund: any;
  let card: any;
  let eventId: string;
  const reference = 'CB-7781';
  const customerReference = `customer-${uniq()}`;

  before(async () => {
    [made, other] = await Promise.all([payoutBusiness(), payoutBusiness()]);
    const { b } = made;
    customer = await activeCustomer(b, { external_reference: customerReference });
    payout = await createPayout(b, { payout_amount: '5.00', external_reference: reference, customer_id: customer.id });
    await createPayout(other.b, { payout_amount: '5.00', external_reference: reference, customer_id: other.customer.id });
    const bulk = await sendBulkPayout(b, [{ customer_id: customer.id, payout_amount: '1.00' }]);
    expect(bulk.status, JSON.stringify(bulk.body)).to.equal(200);
    bulkId = bulk.body.bulk_payout_id;
    wallet = await fundedWallet(b.token, '10.00', { name: 'Payroll Alpha', external_reference: `wallet-ref-${uniq()}` });
    await topup(b.token, '3.00');
    const funded = await post('/cl/v1/funds', { wallet_id: wallet.id, amount: '3.00', external_reference: `fund-ref-${uniq()}` }, { token: b.token });
    expect(funded.status, JSON.stringify(funded.body)).to.equal(201);
    fund = funded.body;
    card = (await issuedCard(b, {}, customer)).card;
    const events = await get('/events?code=onboarding.complete', { token: b.token });
    eventId = events.body.data[0].id;
  });

  it('finds a payout by its id and by its external reference, whole, by prefix and by part', async () => {
    const { token } = made.b;
    const hit = await expectFound(token, reference, 'PAYOUT', payout.payout_id, 'external_reference', 'EXACT');
    expect(hit).to.include({ label: reference, customer_id: customer.id });
    await expectFound(token, 'cb-77', 'PAYOUT', payout.payout_id, 'external_reference', 'PREFIX');
    await expectFound(token, '7781', 'PAYOUT', payout.payout_id, 'external_reference', 'PART');
    await expectFound(token, payout.payout_id, 'PAYOUT', payout.payout_id, 'id', 'EXACT');
    await expectFound(token, bulkId, 'BULK_PAYOUT', bulkId, 'id', 'EXACT');
  });

  it('finds a customer by its id, name, mobile number in any of its forms and external reference', async () => {
    const { token } = made.b;
    const mobile: string = customer.mobile_number; // 9665XXXXXXXX
    await expectFound(token, customer.id, 'CUSTOMER', customer.id, 'id', 'EXACT');
    await expectFound(token, customer.full_name.toLowerCase(), 'CUSTOMER', customer.id, 'name', 'EXACT');
    await expectFound(token, customer.full_name.slice(0, 10), 'CUSTOMER', customer.id, 'name', 'PREFIX');
    await expectFound(token, customer.full_name.slice(3), 'CUSTOMER', customer.id, 'name', 'PART');
    await expectFound(token, `0${mobile.slice(3)}`, 'CUSTOMER', customer.id, 'mobile_number', 'EXACT');
    await expectFound(token, `+${mobile}`, 'CUSTOMER', customer.id, 'mobile_number', 'EXACT');
    await expectFound(token, `0${mobile.slice(3, 8)}`, 'CUSTOMER', customer.id, 'mobile_number', 'PREFIX');
    await expectFound(token, mobile.slice(5), 'CUSTOMER', customer.id, 'mobile_number', 'PART');
    await expectFound(token, customerReference, 'CUSTOMER', customer.id, 'external_reference', 'EXACT');
    await expectFound(token, customerReference.slice(4), 'CUSTOMER', customer.id, 'external_reference', 'PART');
  });

  it('finds a wallet by its id, account number, name and external reference', async () => {
    const { token } = made.b;
    const number: string = wallet.account_number;
    const hit = await expectFound(token, number, 'WALLET', wallet.id, 'account_number', 'EXACT');
    expect(hit.label).to.equal(`Payroll Alpha · ${number}`);
    await expectFound(token, number.slice(0, 6), 'WALLET', wallet.id, 'account_number', 'PREFIX');
    await expectFound(token, number.slice(2, 9), 'WALLET', wallet.id, 'account_number', 'PART');
    await expectFound(token, 'payroll', 'WALLET', wallet.id, 'name', 'PREFIX');
    await expectFound(token, 'roll alp', 'WALLET', wallet.id, 'name', 'PART');
    await expectFound(token, wallet.external_reference, 'WALLET', wallet.id, 'external_reference', 'EXACT');
    await expectFound(token, wallet.id, 'WALLET', wallet.id, 'id', 'EXACT');
  });

  it('finds a transaction by its id, TXN reference and external reference', async () => {
    const { token } = made.b;
    const hit = await expectFound(token, fund.reference, 'TRANSACTION', fund.id, 'reference', 'EXACT');
    expect(hit.label).to.equal(`${fund.reference} · FUND 3.00 SAR`);
    await expectFound(token, fund.reference.slice(0, 9), 'TRANSACTION', fund.id, 'reference', 'PREFIX');
    await expectFound(token, fund.external_reference, 'TRANSACTION', fund.id, 'external_reference', 'EXACT');
    await expectFound(token, fund.external_reference.slice(4), 'TRANSACTION', fund.id, 'external_reference', 'PART');
    await expectFound(token, fund.id, 'TRANSACTION', fund.id, 'id', 'EXACT');
  });

  it('finds a card by its id and its last four digits, showing nothing more of its number', async () => {
    const { token } = made.b;
    const hit = await expectFound(token, card.last_4_digits, 'CARD', card.id, 'last_4_digits', 'EXACT');
    expect(hit).to.include({ label: `•••• ${card.last_4_digits} · ${card.type} ${card.status}`, customer_id: customer.id });
    await expectFound(token, card.id, 'CARD', card.id, 'id', 'EXACT');
  });

  it('finds an event by its id', async () => {
    const hit = await expectFound(made.b.token, eventId, 'EVENT', eventId, 'id', 'EXACT');
    expect(hit.label).to.equal('onboarding.complete');
  });

  it('ranks whole matches before prefixes before parts, and keeps to the limit', async () => {
    const hits = await search(made.b.token, 'CB-7781');
    const ranks = hits.map((h) => ['EXACT', 'PREFIX', 'PART'].indexOf(h.match));
    expect(ranks).to.deep.equal([...ranks].sort());
    expect(await search(made.b.token, '966', 1)).to.have.length(1);
  });

  it("never shows another business's objects", async () => {
    const hits = await search(made.b.token, 'CB-77');
    expect(hits.filter((h) => h.type === 'PAYOUT').map((h) => h.id)).to.deep.equal([payout.payout_id]);
    expect(await search(made.b.token, other.customer.id)).to.deep.equal([]);
    expect(await search(other.b.token, payout.payout_id)).to.deep.equal([]);
    expect(await search(other.b.token, customerReference)).to.deep.equal([]);
  });

  it('leaves out the types whose read the caller may not call', async () => {
    const key = await post('/api-keys', { name: `Search ${uniq()}`, permissions: ['business:read', 'wallets:read'] }, { token: made.b.token });
    expect(key.status, JSON.stringify(key.body)).to.equal(201);
    const token = (await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: key.body.client_id, client_secret: key.body.client_secret })).body.access_token;
    // The payout's transactions carry its reference (its creation's, and its outcome's once the rail
    // answered): transactions, which wallets:read reads; the payout itself is left out.
    expect([...new Set((await search(token, reference)).map((h) => h.type))]).to.deep.equal(['TRANSACTION']);
    expect((await search(token, wallet.account_number)).map((h) => h.type)).to.deep.equal(['WALLET']);
  });

  it('refuses a q too short or with a control character and a limit too big (400), and a caller without business:read (403)', async () => {
    expectProblem(await get('/search?q=ab', { token: made.b.token }), 400, 'VALIDATION_ERROR');
    expectProblem(await get('/search?q=%20ab%20', { token: made.b.token }), 400, 'VALIDATION_ERROR');
    expectProblem(await get('/search?q=CB-77&limit=51', { token: made.b.token }), 400, 'VALIDATION_ERROR');
    expectProblem(await get('/search?q=CB%00-77', { token: made.b.token }), 400, 'VALIDATION_ERROR');
    const key = await post('/api-keys', { name: `No read ${uniq()}`, permissions: ['wallets:read'] }, { token: made.b.token });
    const token = (await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: key.body.client_id, client_secret: key.body.client_secret })).body.access_token;
    expectProblem(await get('/search?q=CB-77', { token }), 403, 'FORBIDDEN');
  });
});
