import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { get, post } from '../support/client.js';
import { newBusiness, platformToken, tokenFor, uniq } from '../support/fixtures.js';
import { expectProblem } from '../support/assertions.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('businesses: createBusiness', () => {
  it('creates a business with an operational account at 0.00 and working client credentials', async () => {
    const name = `Business ${uniq()}`;
    const reference = `ref-${uniq()}`;
    const res = await post('/cl/v1/businesses', { name, external_reference: reference }, { token: await platformToken() });
    expect(res.status).to.equal(201);
    expect(res.body.name).to.equal(name);
    expect(res.body.external_reference).to.equal(reference);
    expect(res.body.status).to.equal('ACTIVE');
    expect(res.body.currency).to.equal('SAR');
    expect(res.body.operational_account.account_number).to.match(/^1\d{11}$/);
    expect(res.body.operational_account.balance).to.equal('0.00');
    expect(res.body.operational_account.currency).to.equal('SAR');
    expect(res.body.credentials.client_id).to.be.a('string').and.not.equal('');
    expect(res.body.credentials.client_secret).to.be.a('string').and.not.equal('');

    const token = await post('/cl/v1/auth/token', {
      grant_type: 'client_credentials',
      client_id: res.body.credentials.client_id,
      client_secret: res.body.credentials.client_secret,
    });
    expect(token.status).to.equal(200);
    expect(token.body.client_kind).to.equal('BUSINESS');
    expect(token.body.business_id).to.equal(res.body.id);
  });

  it('defaults external_reference to null', async () => {
    const res = await post('/cl/v1/businesses', { name: `Business ${uniq()}` }, { token: await platformToken() });
    expect(res.status).to.equal(201);
    expect(res.body.external_reference).to.equal(null);
  });

  it('gives every business its own operational account number', async () => {
    const a = await newBusiness();
    const b = await newBusiness();
    expect(a.operationalAccountNumber).to.not.equal(b.operationalAccountNumber);
  });

  it('answers 400 VALIDATION_ERROR when name is missing', async () => {
    const res = await post('/cl/v1/businesses', { external_reference: `ref-${uniq()}` }, { token: await platformToken() });
    expectProblem(res, 400, 'VALIDATION_ERROR');
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).to.include('/name');
  });

  it('answers 400 VALIDATION_ERROR when name is empty', async () => {
    const res = await post('/cl/v1/businesses', { name: '' }, { token: await platformToken() });
    expectProblem(res, 400, 'VALIDATION_ERROR');
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).to.include('/name');
  });
});

describe('businesses: listBusinesses', () => {
  it('pages newest first with limit and cursor', async () => {
    const token = await platformToken();
    const older = await newBusiness();
    await sleep(5);
    const newer = await newBusiness();

    const first = await get('/cl/v1/businesses?limit=1', { token });
    expect(first.status).to.equal(200);
    expect(first.body.data).to.have.length(1);
    expect(first.body.data[0].id).to.equal(newer.id);
    expect(first.body.has_more).to.equal(true);
    expect(first.body.next_cursor).to.be.a('string');

    const second = await get(`/cl/v1/businesses?limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`, { token });
    expect(second.status).to.equal(200);
    expect(second.body.data).to.have.length(1);
    expect(second.body.data[0].id).to.not.equal(first.body.data[0].id);
    expect(second.body.data[0].id).to.equal(older.id);
    expect(second.body.data[0].created_at <= first.body.data[0].created_at).to.equal(true);
  });

  it('walks every business exactly once, newest first', async () => {
    const token = await platformToken();
    const mine = [await newBusiness()];
    await sleep(5);
    mine.push(await newBusiness());
    const seen: { id: string; created_at: string }[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 1000; i++) {
      const res: { status: number; body: any } = await get(`/cl/v1/businesses?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
      expect(res.status).to.equal(200);
      seen.push(...res.body.data);
      if (!res.body.has_more) {
        expect(res.body.next_cursor).to.equal(null);
        break;
      }
      cursor = res.body.next_cursor;
    }
    const ids = seen.map((b) => b.id);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(ids).to.include.members(mine.map((b) => b.id));
    expect(ids.indexOf(mine[1].id)).to.be.lessThan(ids.indexOf(mine[0].id));
    for (let i = 1; i < seen.length; i++) expect(seen[i].created_at <= seen[i - 1].created_at).to.equal(true);
  });

  it('answers 400 INVALID_CURSOR for a malformed cursor', async () => {
    const res = await get('/cl/v1/businesses?cursor=abc', { token: await platformToken() });
    expectProblem(res, 400, 'INVALID_CURSOR');
  });

  it('answers 400 VALIDATION_ERROR for limit=0 and limit=101', async () => {
    const token = await platformToken();
    for (const limit of [0, 101]) {
      const res = await get(`/cl/v1/businesses?limit=${limit}`, { token });
      expect(res.status, `limit=${limit}`).to.equal(400);
      expect(res.body.code).to.equal('VALIDATION_ERROR');
      expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).to.include('/query/limit');
    }
  });

  it('accepts limit=100', async () => {
    const res = await get('/cl/v1/businesses?limit=100', { token: await platformToken() });
    expect(res.status).to.equal(200);
    expect(res.body.data.length).to.be.within(1, 100);
  });
});

describe('businesses: getBusiness', () => {
  it('lets a platform token read any business', async () => {
    const business = await newBusiness();
    const res = await get(`/cl/v1/businesses/${business.id}`, { token: await platformToken() });
    expect(res.status).to.equal(200);
    expect(res.body.id).to.equal(business.id);
    expect(res.body.operational_account.account_number).to.equal(business.operationalAccountNumber);
    expect(res.body.operational_account.balance).to.equal('0.00');
    expect(res.body).to.not.have.property('credentials');
  });

  it('lets a business token read its own business', async () => {
    const business = await newBusiness();
    const res = await get(`/cl/v1/businesses/${business.id}`, { token: business.token });
    expect(res.status).to.equal(200);
    expect(res.body.id).to.equal(business.id);
    expect(res.body.operational_account.account_number).to.equal(business.operationalAccountNumber);
  });

  it("answers 404 BUSINESS_NOT_FOUND for another business's id with a business token", async () => {
    const business = await newBusiness();
    const other = await newBusiness();
    const res = await get(`/cl/v1/businesses/${other.id}`, { token: business.token });
    expectProblem(res, 404, 'BUSINESS_NOT_FOUND');
  });

  it('answers 404 BUSINESS_NOT_FOUND for an unknown id with a platform token', async () => {
    const res = await get(`/cl/v1/businesses/${randomUUID()}`, { token: await platformToken() });
    expectProblem(res, 404, 'BUSINESS_NOT_FOUND');
  });

  it('answers 400 VALIDATION_ERROR for a non-uuid id', async () => {
    const res = await get('/cl/v1/businesses/not-a-uuid', { token: await platformToken() });
    expectProblem(res, 400, 'VALIDATION_ERROR');
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).to.include('/path/business_id');
  });

  it("accepts the new client's credentials only with its own secret", async () => {
    const res = await post('/cl/v1/businesses', { name: `Business ${uniq()}` }, { token: await platformToken() });
    expect(res.status).to.equal(201);
    const token = await tokenFor(res.body.credentials.client_id, res.body.credentials.client_secret);
    expect((await get(`/cl/v1/businesses/${res.body.id}`, { token })).status).to.equal(200);
    const wrong = await post('/cl/v1/auth/token', {
      grant_type: 'client_credentials',
      client_id: res.body.credentials.client_id,
      client_secret: `${res.body.credentials.client_secret}x`,
    });
    expectProblem(wrong, 401, 'INVALID_CLIENT');
  });
});
