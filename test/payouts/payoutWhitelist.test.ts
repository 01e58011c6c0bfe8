/**
 * The payout whitelist (tag Whitelist): adding entries by each identifier (again
 * is not an error), listing with a cursor, deleting, enforcement on and off, and
 * createPayout's 422 PAYOUT_RECEIVER_NOT_WHITELISTED while it is on.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { expectProblem, expectValidation } from '../support/assertions.js';
import { get, post, request } from '../support/client.js';
import { activeCustomer, startSession } from '../support/customers.js';
import { newBusiness, type TestBusiness } from '../support/fixtures.js';
import { assertLedgerConsistent } from '../support/ledgerInvariants.js';
import { createPayout, payoutBusiness, payoutBusinessHooks, sendPayout } from '../support/payouts.js';
import { running } from '../support/service.js';

const addEntries = (b: TestBusiness, entries: Record<string, unknown>[]) => post('/payout-whitelist/entries', { entries }, { token: b.token });
const enforce = (b: TestBusiness, enforced: boolean) => request('PUT', '/payout-whitelist/enforcement', { token: b.token, body: { enforced } });

describe('Payout whitelist: entries and enforcement', function () {
  this.timeout(60_000);
  let b: TestBusiness;
  let customer: any;

  payoutBusinessHooks((made) => ({ b, customer } = made));

  it('adds a customer by each identifier; adding it again answers the existing entry', async () => {
    const first = await addEntries(b, [{ mobileNumber: customer.mobile_number }]);
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    const [entry] = first.body.data;
    expect(entry).to.include({ customer_id: customer.id, mobile_number: customer.mobile_number, wallet_account_number: customer.wallet_account_number });
    const again = await addEntries(b, [{ customer_id: customer.id }, { walletAccountNumber: customer.wallet_account_number }]);
    expect(again.status).to.equal(200);
    expect(again.body.data).to.deep.equal([entry, entry]);
  });

  it('whitelists a customer still onboarding (no wallet yet)', async () => {
    const session = await startSession(b);
    const res = await addEntries(b, [{ customer_id: session.customer_id }]);
    expect(res.status).to.equal(200);
    expect(res.body.data[0]).to.include({ customer_id: session.customer_id, wallet_account_number: null });
  });

  it('lists entries newest first with a cursor', async () => {
    const other = await newBusiness();
    const people = [await activeCustomer(other), await activeCustomer(other), await activeCustomer(other)];
    for (const p of people) expect((await addEntries(other, [{ customer_id: p.id }])).status).to.equal(200);
    const one = await get('/payout-whitelist/entries?limit=2', { token: other.token });
    expect(one.status).to.equal(200);
    expect(one.body.has_more).to.equal(true);
    const two = await get(`/payout-whitelist/entries?limit=2&cursor=${one.body.next_cursor}`, { token: other.token });
    expect(two.body).to.include({ has_more: false, next_cursor: null });
    expect([...one.body.data, ...two.body.data].map((e: any) => e.customer_id)).to.deep.equal(people.map((p) => p.id).reverse());
  });

  it('400 VALIDATION_ERROR for an entry with no identifier or two; 404 CUSTOMER_NOT_FOUND for an unknown one; nothing added', async () => {
    const other = await newBusiness();
    const someone = await activeCustomer(other);
    expectValidation(await addEntries(other, [{ customer_id: someone.id }, {}]), '/entries/1');
    expectValidation(await addEntries(other, [{ customer_id: someone.id, mobileNumber: someone.mobile_number }]), '/entries/0');
    expectProblem(await addEntries(other, [{ customer_id: someone.id }, { mobileNumber: '966500000001' }]), 404, 'CUSTOMER_NOT_FOUND');
    expectProblem(await addEntries(other, [{ customer_id: customer.id }]), 404, 'CUSTOMER_NOT_FOUND');
    const list = await get('/payout-whitelist/entries', { token: other.token });
    expect(list.body.data).to.deep.equal([]);
  });

  it('deletes an entry; a second delete and another business\'s entry are 404 PAYOUT_WHITELIST_ENTRY_NOT_FOUND', async () => {
    const other = await newBusiness();
    const someone = await activeCustomer(other);
    const [entry] = (await addEntries(other, [{ customer_id: someone.id }])).body.data;
    expectProblem(await request('DELETE', `/payout-whitelist/entries/${entry.entry_id}`, { token: b.token }), 404, 'PAYOUT_WHITELIST_ENTRY_NOT_FOUND');
    const gone = await request('DELETE', `/payout-whitelist/entries/${entry.entry_id}`, { token: other.token });
    expect(gone.status).to.equal(200);
    expect(gone.body).to.deep.equal(entry);
    expectProblem(await request('DELETE', `/payout-whitelist/entries/${entry.entry_id}`, { token: other.token }), 404, 'PAYOUT_WHITELIST_ENTRY_NOT_FOUND');
    expectProblem(await request('DELETE', `/payout-whitelist/entries/${randomUUID()}`, { token: other.token }), 404, 'PAYOUT_WHITELIST_ENTRY_NOT_FOUND');
  });

  it('enforcement: off for a new business; on, a payout to a customer not on the list is 422 PAYOUT_RECEIVER_NOT_WHITELISTED and moves nothing', async () => {
    const { b: biz, customer: listed } = await payoutBusiness('100.00');
    const stranger = await activeCustomer(biz);
    expect((await get('/payout-whitelist/enforcement', { token: biz.token })).body).to.deep.equal({ enforced: false });
    await createPayout(biz, { payout_amount: '1.00', customer_id: stranger.id });
    expect((await addEntries(biz, [{ customer_id: listed.id }])).status).to.equal(200);
    const on = await enforce(biz, true);
    expect(on.status).to.equal(200);
    expect(on.body).to.deep.equal({ enforced: true });
    expect((await enforce(biz, true)).body).to.deep.equal({ enforced: true });
    expect((await get('/payout-whitelist/enforcement', { token: biz.token })).body).to.deep.equal({ enforced: true });
    for (const receiver of [{ customer_id: stranger.id }, { mobileNumber: stranger.mobile_number }, { walletAccountNumber: stranger.wallet_account_number }]) {
      expectProblem(await sendPayout(biz, { payout_amount: '1.00', ...receiver }), 422, 'PAYOUT_RECEIVER_NOT_WHITELISTED');
    }
    await createPayout(biz, { payout_amount: '1.00', mobileNumber: listed.mobile_number });
    // Earlier refusals come first: an unknown receiver is still 404, an amount still 400.
    expectProblem(await sendPayout(biz, { payout_amount: '1.00', customer_id: randomUUID() }), 404, 'CUSTOMER_NOT_FOUND');
    expectValidation(await sendPayout(biz, { payout_amount: '0.00', customer_id: stranger.id }), '/payout_amount');
    expect((await enforce(biz, false)).body).to.deep.equal({ enforced: false });
    await createPayout(biz, { payout_amount: '1.00', customer_id: stranger.id });
    const account = await running().db('accounts').where({ business_id: biz.id, kind: 'PAYOUT' }).first('balance');
    expect(account.balance).to.equal('97.00');
    await assertLedgerConsistent(running().db, biz.id);
  });

  it('400 VALIDATION_ERROR for an enforcement body without a boolean', async () => {
    const res = await request('PUT', '/payout-whitelist/enforcement', { token: b.token, body: { enforced: 'yes' } });
    expectValidation(res, '/enforced');
  });
});
