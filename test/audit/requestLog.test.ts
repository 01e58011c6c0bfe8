/**
 * The API request log (listApiRequests, getApiRequest): what a business's developers see of
 * the requests made for it, their bodies redacted by the logs' rule, found by request id and
 * idempotency key, its own only, for the roles holding `keys:manage`; bounded by its purge and
 * its body cap; written off the critical path, so that a full queue drops entries and nothing
 * else (the audit log and the answers stay whole).
 */
import { acrossBusinesses } from '../../src/db/acrossBusinesses.js';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { get, post, type ApiResponse } from '../support/client.js';
import { expectProblem } from '../support/assertions.js';
import { issuedCard, displaySession } from '../support/cards.js';
import { newBusiness, tokenFor, uniq, type TestBusiness } from '../support/fixtures.js';
import { extraServiceHooks, running } from '../support/service.js';
import { purgeApiRequests } from '../../src/audit/index.js';
import type { RunningService } from '../../src/server.js';

/** The request `requestId` of the business as the request log shows it, once written (it is written after the answer). */
async function recorded(token: string, requestId: string): Promise<ApiResponse> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await get(`/api-requests/${requestId}`, { token });
    if (res.status !== 404 || Date.now() > deadline) return res;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A token of a new key of `b` with `role`. */
async function keyWithRole(b: TestBusiness, role: string): Promise<string> {
  const res = await post('/api-keys', { name: `${role} ${uniq()}`, role }, { token: b.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return tokenFor(res.body.client_id, res.body.client_secret);
}

describe('the API request log', function () {
  this.timeout(90_000);
  let business: TestBusiness;
  let other: TestBusiness;
  let card: { pan: string; cvv: string };
  const ids = { reveal: randomUUID(), key: randomUUID(), invalid: randomUUID(), big: randomUUID() };
  const idempotencyKey = `wallet-${uniq()}`;
  let walletRequestId: string;

  before(async () => {
    [business, other] = await Promise.all([newBusiness(), newBusiness()]);
    const issued = await issuedCard(business);
    const { sessionId, code } = await displaySession(business, issued.card, issued.customer);
    const reveal = await post('/cards/sensitive-data/verify-otp', { session_id: sessionId, otp: code }, { token: business.token, headers: { 'x-request-id': ids.reveal } });
    expect(reveal.status, JSON.stringify(reveal.body)).to.equal(200);
    card = reveal.body;
    const wallet = await post('/cl/v1/wallets', { name: 'Logged' }, { token: business.token, idempotencyKey });
    expect(wallet.status, JSON.stringify(wallet.body)).to.equal(201);
    walletRequestId = wallet.headers.get('x-request-id')!;
  });

  it('records a card reveal with its OTP and its PAN, CVV and expiry redacted', async () => {
    const res = await recorded(business.token, ids.reveal);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.include({ request_id: ids.reveal, operation_id: 'verifyDisplaySensitiveDataOtp', method: 'POST', path: '/cards/sensitive-data/verify-otp', status: 200, problem_code: null, idempotency_key: null });
    expect(res.body.actor.type).to.equal('api_key');
    expect(res.body.duration_ms).to.be.a('number').at.least(0);
    expect(res.body.request_body).to.deep.equal({ session_id: res.body.request_body.session_id, otp: '[redacted]' });
    expect(res.body.response_body).to.include({ pan: '[redacted]', cvv: '[redacted]', expiry: '[redacted]' });
    expect(JSON.stringify(res.body)).not.to.include(card.pan).and.not.to.include(`"${card.cvv}"`);
  });

  it('records secrets sent and answered redacted: a new key\'s secret, and a body with a PAN, an OTP and a password', async () => {
    const key = await post('/api-keys', { name: 'Logged key', role: 'viewer' }, { token: business.token, headers: { 'x-request-id': ids.key } });
    expect(key.status).to.equal(201);
    const sent = { name: 'Refused', pan: '9990010123456784', otp: '482913', nested: { password: 'hunter2', client_secret: 's3cret' } };
    const refused = await post('/cl/v1/wallets', sent, { token: business.token, headers: { 'x-request-id': ids.invalid } });
    expectProblem(refused, 400, 'VALIDATION_ERROR');

    const keyEntry = (await recorded(business.token, ids.key)).body;
    expect(keyEntry.response_body).to.include({ client_id: key.body.client_id, client_secret: '[redacted]' });
    const refusedEntry = (await recorded(business.token, ids.invalid)).body;
    expect(refusedEntry).to.include({ status: 400, problem_code: 'VALIDATION_ERROR' });
    expect(refusedEntry.request_body).to.deep.equal({ name: 'Refused', pan: '[redacted]', otp: '[redacted]', nested: { password: '[redacted]', client_secret: '[redacted]' } });
    expect(refusedEntry.response_body).to.include({ status: 400, code: 'VALIDATION_ERROR' }); // a `code` naming a kind is kept; a TOTP code's digits are not
  });

  it('finds requests by request id and by idempotency key, newest first, a page at a time', async () => {
    await recorded(business.token, walletRequestId);
    const byKey = await get(`/api-requests?idempotency_key=${idempotencyKey}`, { token: business.token });
    expect(byKey.status).to.equal(200);
    expect(byKey.body.data.map((r: any) => r.request_id)).to.deep.equal([walletRequestId]);
    expect(byKey.body.data[0]).to.include({ operation_id: 'createWallet', status: 201, idempotency_key: idempotencyKey });
    expect(byKey.body.data[0]).not.to.have.property('request_body');
    const byId = await get(`/api-requests?request_id=${ids.reveal}`, { token: business.token });
    expect(byId.body.data.map((r: any) => r.request_id)).to.deep.equal([ids.reveal]);
    const failed = await get('/api-requests?status=400&operation_id=createWallet', { token: business.token });
    expect(failed.body.data.map((r: any) => r.request_id)).to.include(ids.invalid);
    const page = await get('/api-requests?limit=1', { token: business.token });
    expect(page.body.data).to.have.length(1);
    const next = await get(`/api-requests?limit=1&cursor=${page.body.next_cursor}`, { token: business.token });
    expect(next.body.data[0].created_at <= page.body.data[0].created_at).to.equal(true);
    expect(next.body.data[0].id).not.to.equal(page.body.data[0].id);
  });

  it("shows a business its own requests only", async () => {
    expectProblem(await get(`/api-requests/${ids.reveal}`, { token: other.token }), 404, 'API_REQUEST_NOT_FOUND');
    const listed = await get(`/api-requests?request_id=${ids.reveal}`, { token: other.token });
    expect(listed.body.data).to.deep.equal([]);
  });

  it('is read with keys:manage: a developer may, a viewer or a support key may not', async () => {
    expect((await get(`/api-requests/${ids.reveal}`, { token: await keyWithRole(business, 'developer') })).status).to.equal(200);
    for (const role of ['viewer', 'support']) {
      const token = await keyWithRole(business, role);
      expectProblem(await get('/api-requests', { token }), 403, 'FORBIDDEN');
      expectProblem(await get(`/api-requests/${ids.reveal}`, { token }), 403, 'FORBIDDEN');
    }
  });

  it('stores a body over 16 KiB as a marker saying it was cut', async () => {
    const res = await post('/cl/v1/wallets', { name: 'Big', notes: 'x'.repeat(20_000) }, { token: business.token, headers: { 'x-request-id': ids.big } });
    expect(res.status).to.equal(400);
    const entry = (await recorded(business.token, ids.big)).body;
    expect(entry.request_body.omitted).to.equal('too_large');
    expect(entry.request_body.bytes).to.be.greaterThan(16 * 1024);
  });

  it('does not record token requests or unauthenticated calls', async () => {
    const requestId = randomUUID();
    await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' }, { headers: { 'x-request-id': requestId } });
    await new Promise((resolve) => setTimeout(resolve, 700));
    // Any business's rows: a token request names none (on Citus, a read of every shard).
    const rows = await acrossBusinesses(running().db, (trx) => trx('api_requests').where({ request_id: requestId }));
    expect(rows).to.deep.equal([]);
  });

  describe('with a full queue (an instance that queues none)', () => {
    let dropping: RunningService;
    extraServiceHooks({ apiRequestLogQueue: 0 }, (s) => (dropping = s));

    it('drops the entry and counts it; the answer and the audit log are whole', async () => {
      const requestId = randomUUID();
      const res = await post('/cl/v1/wallets', { name: 'Unlogged' }, { token: business.token, baseUrl: dropping.url, headers: { 'x-request-id': requestId } });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      const audit = await get('/audit-events?operation_id=createWallet&limit=100', { token: business.token });
      expect(audit.body.data.map((e: any) => e.request_id)).to.include(requestId);
      await new Promise((resolve) => setTimeout(resolve, 700));
      expectProblem(await get(`/api-requests/${requestId}`, { token: business.token }), 404, 'API_REQUEST_NOT_FOUND');
      const metrics = (await get('/metrics', { baseUrl: dropping.url })).body as string;
      expect(metrics).to.match(/api_request_log_entries_total\{outcome="dropped"\} [1-9]/);
    });
  });

  describe('the purge', () => {
    it('deletes requests past API_REQUEST_LOG_DAYS, then each business\'s oldest past its row bound', async () => {
      const { db } = running();
      const old = randomUUID();
      const row = { business_id: business.id, operation_id: 'listWallets', method: 'GET', path: '/cl/v1/wallets', status: 200, duration_ms: 1, actor_type: 'api_key', actor_id: 'x' };
      await db('api_requests').insert({ ...row, id: randomUUID(), request_id: old, created_at: db.raw("now() - interval '8 days'") });
      await purgeApiRequests(db, 7, 1_000_000);
      expectProblem(await get(`/api-requests/${old}`, { token: business.token }), 404, 'API_REQUEST_NOT_FOUND');
      expect((await get(`/api-requests/${ids.reveal}`, { token: business.token })).status).to.equal(200);

      await new Promise((resolve) => setTimeout(resolve, 700)); // the requests above written
      const newest = () => db('api_requests').where({ business_id: business.id }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).pluck('id');
      const before = await newest();
      expect(before.length).to.be.greaterThan(3);
      await purgeApiRequests(db, 7, 3);
      expect(await newest()).to.deep.equal(before.slice(0, 3));
    });
  });
});
