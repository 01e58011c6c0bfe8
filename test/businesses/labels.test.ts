import { expect } from 'chai';
import { get, post } from '../support/client.js';
import { newBusiness, platformToken, uniq } from '../support/fixtures.js';
import { expectProblem } from '../support/assertions.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Creates a label; asserts 201. */
async function newLabel(token: string, name = `Label ${uniq()}`, description?: string): Promise<any> {
  const res = await post('/cl/v1/labels', description === undefined ? { name } : { name, description }, { token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body;
}

describe('labels: createLabel', () => {
  it('creates a label of the caller business', async () => {
    const business = await newBusiness();
    const res = await post('/cl/v1/labels', { name: 'Employees', description: 'Salary wallets of staff' }, { token: business.token });
    expect(res.status).to.equal(201);
    expect(res.body.id).to.match(/^[0-9a-f-]{36}$/);
    expect(res.body.business_id).to.equal(business.id);
    expect(res.body.name).to.equal('Employees');
    expect(res.body.description).to.equal('Salary wallets of staff');
  });

  it('defaults description to null', async () => {
    const business = await newBusiness();
    const label = await newLabel(business.token, 'No description');
    expect(label.description).to.equal(null);
  });

  it('answers 409 LABEL_NAME_TAKEN for a name already used in the business', async () => {
    const business = await newBusiness();
    await newLabel(business.token, 'Customers');
    const res = await post('/cl/v1/labels', { name: 'Customers', description: 'again' }, { token: business.token });
    expectProblem(res, 409, 'LABEL_NAME_TAKEN');
    const list = await get('/cl/v1/labels', { token: business.token });
    expect(list.body.data.map((l: { name: string }) => l.name)).to.deep.equal(['Customers']);
  });

  it('allows the same name in another business', async () => {
    const a = await newBusiness();
    const b = await newBusiness();
    const first = await newLabel(a.token, 'Shared name');
    const second = await newLabel(b.token, 'Shared name');
    expect(second.id).to.not.equal(first.id);
    expect(second.business_id).to.equal(b.id);
  });

  it('answers 400 VALIDATION_ERROR when name is missing', async () => {
    const business = await newBusiness();
    const res = await post('/cl/v1/labels', { description: 'no name' }, { token: business.token });
    expectProblem(res, 400, 'VALIDATION_ERROR');
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).to.include('/name');
  });

  it('answers 400 VALIDATION_ERROR for an extra field', async () => {
    const business = await newBusiness();
    const res = await post('/cl/v1/labels', { name: `Label ${uniq()}`, color: 'red' }, { token: business.token });
    expectProblem(res, 400, 'VALIDATION_ERROR');
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).to.include('/color');
    const list = await get('/cl/v1/labels', { token: business.token });
    expect(list.body.data).to.deep.equal([]);
  });

  it('answers 403 FORBIDDEN for a platform token', async () => {
    const res = await post('/cl/v1/labels', { name: `Label ${uniq()}` }, { token: await platformToken() });
    expectProblem(res, 403, 'FORBIDDEN');
  });
});

describe('labels: listLabels', () => {
  it("shows only the caller's labels, newest first", async () => {
    const business = await newBusiness();
    const other = await newBusiness();
    const created = [];
    for (const name of ['First', 'Second', 'Third']) {
      created.push(await newLabel(business.token, name));
      await sleep(3);
    }
    await newLabel(other.token, 'Not mine');

    const res = await get('/cl/v1/labels', { token: business.token });
    expect(res.status).to.equal(200);
    expect(res.body.data.map((l: { name: string }) => l.name)).to.deep.equal(['Third', 'Second', 'First']);
    expect(res.body.data.every((l: { business_id: string }) => l.business_id === business.id)).to.equal(true);
    expect(res.body.data[0]).to.deep.equal(created[2]);
    expect(res.body.has_more).to.equal(false);
    expect(res.body.next_cursor).to.equal(null);

    const theirs = await get('/cl/v1/labels', { token: other.token });
    expect(theirs.body.data.map((l: { name: string }) => l.name)).to.deep.equal(['Not mine']);
  });

  it('paginates with limit and cursor', async () => {
    const business = await newBusiness();
    for (const name of ['L1', 'L2', 'L3', 'L4', 'L5']) {
      await newLabel(business.token, name);
      await sleep(3);
    }
    const names: string[] = [];
    const pages: number[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 10; i++) {
      const res: { status: number; body: any } = await get(`/cl/v1/labels?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
        token: business.token,
      });
      expect(res.status).to.equal(200);
      pages.push(res.body.data.length);
      names.push(...res.body.data.map((l: { name: string }) => l.name));
      if (!res.body.has_more) {
        expect(res.body.next_cursor).to.equal(null);
        break;
      }
      expect(res.body.next_cursor).to.be.a('string');
      cursor = res.body.next_cursor;
    }
    expect(pages).to.deep.equal([2, 2, 1]);
    expect(names).to.deep.equal(['L5', 'L4', 'L3', 'L2', 'L1']);
  });

  it('answers has_more false when the page is exactly full', async () => {
    const business = await newBusiness();
    await newLabel(business.token, 'A');
    await sleep(3);
    await newLabel(business.token, 'B');
    const res = await get('/cl/v1/labels?limit=2', { token: business.token });
    expect(res.status).to.equal(200);
    expect(res.body.data).to.have.length(2);
    expect(res.body.has_more).to.equal(false);
    expect(res.body.next_cursor).to.equal(null);
  });

  it('answers 400 INVALID_CURSOR for a malformed cursor and 400 VALIDATION_ERROR for limit=0', async () => {
    const business = await newBusiness();
    const cursor = await get('/cl/v1/labels?cursor=abc', { token: business.token });
    expectProblem(cursor, 400, 'INVALID_CURSOR');
    const limit = await get('/cl/v1/labels?limit=0', { token: business.token });
    expectProblem(limit, 400, 'VALIDATION_ERROR');
  });

  it('answers 403 FORBIDDEN for a platform token', async () => {
    const res = await get('/cl/v1/labels', { token: await platformToken() });
    expectProblem(res, 403, 'FORBIDDEN');
  });
});
