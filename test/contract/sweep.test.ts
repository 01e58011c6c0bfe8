/**
 * Document-driven sweep: every operation of both documents is called with its
 * own documented request example, to check the statuses every operation shares
 * (400 unsupported version, 401 no token, 403 wrong client kind, 429 rate
 * limit), and the idempotency statuses of every money-moving POST.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Knex } from 'knex';
import type { RunningService } from '../../src/server.js';
import { get, post, request, type RequestOptions } from '../support/client.js';
import { accessOf, documentedOperations, signatureHeaders, type DocumentedOperation } from '../support/operations.js';
import { credit, newBusiness, newWallet, platformToken, topup, type TestBusiness } from '../support/fixtures.js';
import { running, startExtraService } from '../support/service.js';
import { expectProblem } from '../support/assertions.js';

type SweepOperation = DocumentedOperation;
const operations = documentedOperations;

describe('every operation (document-driven sweep)', () => {
  let business: TestBusiness;
  let platform: string;
  const tokenFor = (operationId: string) => (accessOf(operationId) === 'platform' ? platform : business.token);
  const wrongTokenFor = (operationId: string) => (accessOf(operationId) === 'platform' ? business.token : platform);
  const call = (op: SweepOperation, opts: RequestOptions) =>
    request(op.method, op.path, { ...opts, body: op.body, headers: { ...signatureHeaders(op, op.body), ...(opts.headers ?? {}) } });

  before(async () => {
    business = await newBusiness();
    platform = await platformToken();
  });

  it('has request examples that pass validation for every operation with a body', () => {
    for (const op of operations.filter((o) => o.method !== 'GET' && o.method !== 'DELETE')) {
      expect(op.body, `${op.operationId} has no request example`).to.not.equal(undefined);
    }
  });

  it('400 UNSUPPORTED_API_VERSION for an unknown X-API-Version, on every operation', async () => {
    for (const op of operations) {
      const res = await call(op, { token: tokenFor(op.operationId), headers: { 'X-API-Version': 'v0' } });
      expect(res.status, op.operationId).to.equal(400);
      expect(res.body.code).to.equal('UNSUPPORTED_API_VERSION');
    }
  });

  it('401 UNAUTHORIZED without a token (INVALID_SIGNATURE without a signature), on every secured operation', async () => {
    for (const op of operations.filter((o) => o.secured)) {
      const res = await request(op.method, op.path, { body: op.body });
      expect(res.status, op.operationId).to.equal(401);
      expect(res.body.code, op.operationId).to.equal(op.signedBy ? 'INVALID_SIGNATURE' : 'UNAUTHORIZED');
      expect(res.headers.get('www-authenticate'), op.operationId).to.match(op.signedBy ? /^Signature / : /^Bearer /);
    }
  });

  // An operation either kind may call (`any`) refuses only a key without its permission (test/businesses/apiKeys.test.ts).
  it('403 FORBIDDEN with the other kind of client, on every operation of one kind that documents 403', async () => {
    const withForbidden = operations.filter((o) => o.statuses.includes('403') && accessOf(o.operationId) !== 'any');
    expect(withForbidden.length).to.be.greaterThan(20);
    for (const op of withForbidden) {
      const res = await call(op, { token: wrongTokenFor(op.operationId) });
      expect(res.status, `${op.operationId}: ${JSON.stringify(res.body)}`).to.equal(403);
      expect(res.body.code).to.equal('FORBIDDEN');
    }
  });

  it('400 MALFORMED_JSON and UNSUPPORTED_MEDIA_TYPE, on every operation that takes a body', async () => {
    const withBody = operations.filter((o) => o.body !== undefined);
    expect(withBody.length).to.be.greaterThan(12);
    for (const op of withBody) {
      const token = tokenFor(op.operationId);
      const malformed = await request(op.method, op.path, { token, rawBody: '{"amount": ', headers: { 'content-type': 'application/json' } });
      expectProblem(malformed, 400, 'MALFORMED_JSON');
      const text = await request(op.method, op.path, { token, rawBody: 'amount=1', headers: { 'content-type': 'text/plain' } });
      expectProblem(text, 400, 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('400 VALIDATION_ERROR naming the field, on every operation that takes a body or parameters', async () => {
    let checked = 0;
    for (const op of operations) {
      const token = tokenFor(op.operationId);
      let res;
      let pointer: string;
      if (op.body !== undefined) {
        const body = { ...(op.body as object), unexpected_field: 'x' };
        res = await request(op.method, op.path, { token, body, headers: signatureHeaders(op, body) });
        pointer = '/unexpected_field';
      } else if (op.pathParams.length) {
        // A space: no id, reference or request id the documents accept holds one.
        res = await request(op.method, op.template.replace(/\{\w+\}/g, 'not%20valid'), { token });
        pointer = `/path/${op.pathParams[0]}`;
      } else if (op.queryParams.length) {
        const name = op.queryParams.includes('limit') ? 'limit' : op.queryParams[0];
        res = await request(op.method, `${op.path}?${name}=${name === 'limit' ? '0' : '%01'}`, { token });
        pointer = `/query/${name}`;
      } else continue;
      expectProblem(res, 400, 'VALIDATION_ERROR');
      expect(res.body.errors.map((e: { pointer: string }) => e.pointer), op.operationId).to.include(pointer);
      checked += 1;
    }
    expect(checked).to.be.greaterThan(25);
  });

  it('400 INVALID_CURSOR for a cursor this service did not issue, on every list', async () => {
    const lists = operations.filter((o) => o.queryParams.includes('cursor'));
    expect(lists.length).to.be.greaterThan(5);
    const wallet = await newWallet(business.token); // lists under a wallet need one that exists
    const url = 'https://hooks.example.com/sweep'; // and lists under a webhook endpoint one
    await post('/cl/v1/webhooks/endpoints', { url, secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`, events: ['topup.complete'] }, { token: business.token });
    const endpoint = (await get('/cl/v1/webhooks/endpoints', { token: business.token })).body.data.find((e: { url: string }) => e.url === url);
    for (const op of lists) {
      // A customer's lists refuse a bad cursor before they look the customer up: any UUID does.
      const path = op.template.replace('{wallet_id}', wallet.id).replace('{endpoint_id}', endpoint.id).replace('{customer_id}', randomUUID());
      expectProblem(await request(op.method, `${path}?cursor=AAAA`, { token: tokenFor(op.operationId) }), 400, 'INVALID_CURSOR');
    }
  });

  describe('429 RATE_LIMITED past the per-client limit', () => {
    let limited: RunningService;
    before(async () => {
      limited = await startExtraService({ rateLimitPerMinute: 1, rateLimitPerAddressPerMinute: 1 });
      // Stay inside one one-minute window for the whole sweep.
      const left = 60_000 - (Date.now() % 60_000);
      if (left < 10_000) await new Promise((r) => setTimeout(r, left + 50));
    });
    after(() => limited.close());

    it('answers 429 with Retry-After on every operation that documents 429', async () => {
      const withLimit = operations.filter((o) => o.statuses.includes('429'));
      expect(withLimit.length).to.be.greaterThan(25);
      // One request per client (and per address, for createToken) uses up the limit of 1.
      await get('/cl/v1/labels', { token: business.token, baseUrl: limited.url });
      await get('/cl/v1/businesses', { token: platform, baseUrl: limited.url });
      await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: 'x', client_secret: 'y' }, { baseUrl: limited.url });
      for (const op of withLimit) {
        const res = await call(op, { token: tokenFor(op.operationId), baseUrl: limited.url });
        expect(res.status, `${op.operationId}: ${JSON.stringify(res.body)}`).to.equal(429);
        expect(res.body.code).to.equal('RATE_LIMITED');
        expect(Number(res.headers.get('retry-after'))).to.be.within(0, 60);
      }
    });
  });
});

describe('idempotency statuses of every money-moving POST', () => {
  it('409 IDEMPOTENCY_KEY_IN_USE while the first runs, 422 IDEMPOTENCY_KEY_REUSED for another body, then the replay', async function () {
    this.timeout(60_000);
    const b = await newBusiness();
    const [w1, w2] = [await newWallet(b.token), await newWallet(b.token)];
    await topup(b.token, '1000.00');
    const payout = await credit(b.token, w1.id, '100.00', 'payouts');
    const fund = await credit(b.token, w2.id, '100.00');
    const cases: [string, Record<string, unknown>][] = [
      ['/cl/v1/testhelpers/topups', { amount: '1.00' }],
      ['/cl/v1/funds', { wallet_id: w1.id, amount: '1.00' }],
      ['/cl/v1/payouts', { wallet_id: w1.id, amount: '1.00' }],
      ['/cl/v1/transfers', { source_wallet_id: w1.id, destination_wallet_id: w2.id, amount: '1.00' }],
      ['/cl/v1/withdrawals', { wallet_id: w2.id, amount: '1.00' }],
      ['/cl/v1/refunds', { original_transaction_id: payout.id, amount: '1.00' }],
      ['/cl/v1/reversals', { original_transaction_id: fund.id }],
    ];
    const db: Knex = running().db;
    for (const [path, body] of cases) {
      const key = randomUUID();
      // Hold every account of the business so that the first request waits inside its transaction.
      const trx = await db.transaction();
      await trx('accounts').where({ business_id: b.id }).orderBy('id').forUpdate().select('id');
      const first = post(path, body, { token: b.token, idempotencyKey: key });
      await new Promise((r) => setTimeout(r, 250));
      const inUse = await post(path, body, { token: b.token, idempotencyKey: key });
      const other = 'amount' in body ? { ...body, amount: '2.00' } : { ...body, notes: 'another body' };
      const reused = await post(path, other, { token: b.token, idempotencyKey: key });
      await trx.commit();
      const done = await first;
      expect(inUse.status, path).to.equal(409);
      expect(inUse.body.code).to.equal('IDEMPOTENCY_KEY_IN_USE');
      expect(reused.status, path).to.equal(422);
      expect(reused.body.code).to.equal('IDEMPOTENCY_KEY_REUSED');
      expect(done.status, `${path}: ${JSON.stringify(done.body)}`).to.equal(201);
      const replay = await post(path, body, { token: b.token, idempotencyKey: key });
      expect(replay.headers.get('idempotent-replayed'), path).to.equal('true');
      expect(replay.body).to.deep.equal(done.body);
    }
  });
});

describe('limits and dependencies', () => {
  it('GET /ready answers 503 SERVICE_UNAVAILABLE when the database cannot be reached', async () => {
    const extra = await startExtraService({});
    try {
      expect((await get('/ready', { baseUrl: extra.url })).status).to.equal(200);
      await extra.db.destroy(); // the service's pool is gone: every query fails
      const res = await get('/ready', { baseUrl: extra.url });
      expectProblem(res, 503, 'SERVICE_UNAVAILABLE');
      expect((await get('/health', { baseUrl: extra.url })).status, 'liveness does not depend on the database').to.equal(200);
    } finally {
      await extra.close().catch(() => undefined);
    }
  });
});
