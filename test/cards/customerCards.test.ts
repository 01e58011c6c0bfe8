/**
 * listCustomerCards (GET /customers/{customer_id}/cards): the cards issued to one customer,
 * as getCard shows them, newest first, paged by cursor; a customer without cards has an
 * empty page; an unknown customer or another business's is 404 CUSTOMER_NOT_FOUND; a bad
 * limit or cursor is 400 and nothing else.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { expectProblem, expectValidation } from '../support/assertions.js';
import { issuedCard } from '../support/cards.js';
import { get } from '../support/client.js';
import { activeCustomer } from '../support/customers.js';
import { newBusiness, type TestBusiness } from '../support/fixtures.js';

describe('Cards: listCustomerCards', function () {
  this.timeout(60_000);
  let b: TestBusiness;
  let customer: any;
  const cards: any[] = [];

  before(async () => {
    b = await newBusiness();
    customer = await activeCustomer(b);
    for (let i = 0; i < 2; i++) cards.unshift((await issuedCard(b, {}, customer)).card);
  });

  it("lists the customer's cards newest first as getCard shows them, paged by cursor", async () => {
    const all = await get(`/customers/${customer.id}/cards`, { token: b.token });
    expect(all.status, JSON.stringify(all.body)).to.equal(200);
    expect(all.body.data.map((c: { id: string }) => c.id)).to.deep.equal(cards.map((c) => c.id));
    expect(all.body.data[0]).to.deep.equal((await get(`/cards/${cards[0].id}`, { token: b.token })).body);
    expect(all.body).to.include({ has_more: false, next_cursor: null });
    const first = await get(`/customers/${customer.id}/cards?limit=1`, { token: b.token });
    expect(first.body.data.map((c: { id: string }) => c.id)).to.deep.equal([cards[0].id]);
    expect(first.body.has_more).to.equal(true);
    const second = await get(`/customers/${customer.id}/cards?limit=1&cursor=${first.body.next_cursor}`, { token: b.token });
    expect(second.body.data.map((c: { id: string }) => c.id)).to.deep.equal([cards[1].id]);
    expect(second.body).to.include({ has_more: false, next_cursor: null });
  });

  it('answers an empty page for a customer without cards', async () => {
    const other = await activeCustomer(b);
    expect((await get(`/customers/${other.id}/cards`, { token: b.token })).body).to.deep.equal({ data: [], has_more: false, next_cursor: null });
  });

  it("answers 404 CUSTOMER_NOT_FOUND for an unknown customer and for another business's", async () => {
    expectProblem(await get(`/customers/${randomUUID()}/cards`, { token: b.token }), 404, 'CUSTOMER_NOT_FOUND');
    const other = await newBusiness();
    expectProblem(await get(`/customers/${customer.id}/cards`, { token: other.token }), 404, 'CUSTOMER_NOT_FOUND');
  });

  it('answers 400 VALIDATION_ERROR for a bad id or limit, and 400 INVALID_CURSOR for a cursor it did not issue', async () => {
    expectValidation(await get('/customers/not-a-uuid/cards', { token: b.token }), '/path/customer_id');
    expectValidation(await get(`/customers/${customer.id}/cards?limit=0`, { token: b.token }), '/query/limit');
    expectProblem(await get(`/customers/${customer.id}/cards?cursor=bm90LWEtY3Vyc29y`, { token: b.token }), 400, 'INVALID_CURSOR');
  });
});
