import { expect } from 'chai';
import { get, post, request, type RequestOptions } from '../support/client.js';
import { expectProblem } from '../support/assertions.js';
import { newBusiness, tokenFor, uniq, type TestBusiness } from '../support/fixtures.js';
import { documentedOperations, exampleRequest } from '../support/operations.js';
import { isPermission, ROLES } from '../../src/kernel/permissions.js';

const patch = (path: string, body: unknown, opts: RequestOptions) => request('PATCH', path, { ...opts, body });
const del = (path: string, opts: RequestOptions) => request('DELETE', path, opts);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Creates a key of `business`; asserts 201 and returns the key with its secret. */
async function newKey(business: { token: string }, body: Record<string, unknown>): Promise<any> {
  const res = await post('/api-keys', { name: `Key ${uniq()}`, ...body }, { token: business.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body;
}

/** The status of a token request with these credentials. */
async function tokenStatus(clientId: string, secret: string): Promise<number> {
  return (await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: clientId, client_secret: secret })).status;
}

describe('API keys', () => {
  let business: TestBusiness;
  before(async () => {
    business = await newBusiness();
  });

  it('creates a key whose secret is shown once, lists and reads it without the secret, and records its use', async () => {
    const key = await newKey(business, { role: 'viewer' });
    expect(key).to.include({ role: 'viewer', status: 'ACTIVE', last_used_at: null });
    expect(key.permissions).to.deep.equal([...ROLES.viewer]);
    expect(key.client_secret).to.be.a('string').with.length.greaterThan(30);
    const token = await tokenFor(key.client_id, key.client_secret);
    expect((await get('/cl/v1/wallets', { token })).status).to.equal(200);

    const read = await get(`/api-keys/${key.id}`, { token: business.token });
    expect(read.status).to.equal(200);
    expect(read.body).not.to.have.property('client_secret');
    expect(read.body.last_used_at).to.be.a('string');
    const list = await get('/api-keys?limit=100', { token: business.token });
    expect(list.status).to.equal(200);
    expect(list.body.data.map((k: { id: string }) => k.id)).to.include(key.id);
    // The client the business was created with is a key too, with every permission.
    expect(list.body.data.find((k: { name: string | null }) => k.name === null)).to.include({ role: 'owner' });
    expect(JSON.stringify(list.body)).not.to.include(key.client_secret);
  });

  it('answers a retried create with the same key and secret', async () => {
    const idempotencyKey = uniq();
    const body = { name: 'Retried', permissions: ['wallets:read'] };
    const first = await post('/api-keys', body, { token: business.token, idempotencyKey });
    const again = await post('/api-keys', body, { token: business.token, idempotencyKey });
    expect(first.status).to.equal(201);
    expect(again.status).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    expect(first.headers.get('location')).to.equal(`/api-keys/${first.body.id}`);
    expectProblem(await post('/api-keys', { ...body, name: 'Other' }, { token: business.token, idempotencyKey }), 422, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('refuses a role with permissions, and a grant beyond what the caller holds', async () => {
    expectProblem(await post('/api-keys', { name: 'Both', role: 'viewer', permissions: ['wallets:read'] }, { token: business.token }), 400, 'VALIDATION_ERROR');
    expectProblem(await post('/api-keys', { name: 'Neither' }, { token: business.token }), 400, 'VALIDATION_ERROR');
    const manager = await newKey(business, { permissions: ['keys:manage', 'wallets:read'] });
    const token = await tokenFor(manager.client_id, manager.client_secret);
    const owner = await post('/api-keys', { name: 'Escalation', role: 'owner' }, { token });
    expectProblem(owner, 403, 'FORBIDDEN');
    expect(owner.body.detail).to.include('business:read');
    expect((await post('/api-keys', { name: 'Narrower', permissions: ['wallets:read'] }, { token })).status).to.equal(201);
  });

  it('gives a read-only key 403 naming the permission on every operation that needs another, and lets it read', async function () {
    this.timeout(120_000);
    const viewer = await newKey(business, { role: 'viewer' });
    const token = await tokenFor(viewer.client_id, viewer.client_secret);
    const held: readonly string[] = ROLES.viewer;
    const refused: string[] = [];
    for (const op of documentedOperations) {
      const { permission } = op;
      if (!isPermission(permission)) continue;
      const { path, body } = exampleRequest(op);
      const res = await request(op.method, path, { token, body, headers: op.exampleHeaders });
      if (held.includes(permission)) {
        expect(res.status, `${op.operationId} (${permission})`).not.to.equal(403);
      } else {
        expectProblem(res, 403, 'FORBIDDEN');
        expect(res.body.detail, op.operationId).to.include(permission);
        refused.push(op.operationId);
      }
    }
    // Every money-moving operation is among them.
    expect(refused).to.include.members(['createFund', 'createTransfer', 'createPayout', 'createWithdrawal', 'createRefund', 'createReversal', 'createCustomerPayout', 'createBulkPayout', 'createSandboxTopup']);
  });

  it('narrows a key at once: its token loses what the key no longer holds', async () => {
    const key = await newKey(business, { permissions: ['wallets:read', 'wallets:write'] });
    const token = await tokenFor(key.client_id, key.client_secret);
    expect((await post('/cl/v1/wallets', { name: 'Allowed' }, { token })).status).to.equal(201);
    const narrowed = await patch(`/api-keys/${key.id}`, { name: 'Read only', permissions: ['wallets:read'] }, { token: business.token });
    expect(narrowed.status).to.equal(200);
    expect(narrowed.body).to.include({ name: 'Read only', role: null });
    expectProblem(await post('/cl/v1/wallets', { name: 'Refused' }, { token }), 403, 'FORBIDDEN');
    expect((await get('/cl/v1/wallets', { token })).status).to.equal(200);
    // An operation platform and business tokens may both call refuses a key without its permission too.
    const business403 = await get(`/cl/v1/businesses/${business.id}`, { token });
    expectProblem(business403, 403, 'FORBIDDEN');
    expect(business403.body.detail).to.include('business:read');
  });

  it('keeps the previous secret working alongside a rolled one until the overlap ends, then only the new one', async function () {
    this.timeout(20_000);
    const key = await newKey(business, { role: 'viewer' });
    const rolled = await post(`/api-keys/${key.id}/secret-rolls`, { previous_secret_valid_seconds: 2 }, { token: business.token });
    expect(rolled.status).to.equal(200);
    expect(rolled.body.client_secret).to.be.a('string').and.not.equal(key.client_secret);
    expect(rolled.body.previous_secret_expires_at).to.be.a('string');
    expect(await tokenStatus(key.client_id, key.client_secret)).to.equal(200);
    expect(await tokenStatus(key.client_id, rolled.body.client_secret)).to.equal(200);
    await sleep(Date.parse(rolled.body.previous_secret_expires_at) - Date.now() + 200);
    expect(await tokenStatus(key.client_id, key.client_secret)).to.equal(401);
    expect(await tokenStatus(key.client_id, rolled.body.client_secret)).to.equal(200);
    // A roll with no body keeps the previous secret for 24 hours.
    const again = await post(`/api-keys/${key.id}/secret-rolls`, undefined, { token: business.token });
    expect(again.status).to.equal(200);
    expect(Date.parse(again.body.previous_secret_expires_at) - Date.now()).to.be.within(86_000_000, 86_400_000);
  });

  it('revokes a key: its token and its secret get 401, and it can no longer be changed', async () => {
    const key = await newKey(business, { role: 'viewer' });
    const token = await tokenFor(key.client_id, key.client_secret);
    const revoked = await del(`/api-keys/${key.id}`, { token: business.token });
    expect(revoked.status).to.equal(200);
    expect(revoked.body).to.include({ status: 'REVOKED' });
    expectProblem(await get('/cl/v1/wallets', { token }), 401, 'UNAUTHORIZED');
    expectProblem(await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: key.client_id, client_secret: key.client_secret }), 401, 'INVALID_CLIENT');
    expectProblem(await patch(`/api-keys/${key.id}`, { name: 'Back' }, { token: business.token }), 404, 'API_KEY_NOT_FOUND');
    expectProblem(await post(`/api-keys/${key.id}/secret-rolls`, {}, { token: business.token }), 404, 'API_KEY_NOT_FOUND');
    expect((await del(`/api-keys/${key.id}`, { token: business.token })).body).to.deep.equal(revoked.body);
  });

  it('neither shows nor lets another business manage its keys', async () => {
    const key = await newKey(business, { role: 'viewer' });
    const other = await newBusiness();
    expectProblem(await get(`/api-keys/${key.id}`, { token: other.token }), 404, 'API_KEY_NOT_FOUND');
    expectProblem(await patch(`/api-keys/${key.id}`, { name: 'Taken' }, { token: other.token }), 404, 'API_KEY_NOT_FOUND');
    expectProblem(await post(`/api-keys/${key.id}/secret-rolls`, {}, { token: other.token }), 404, 'API_KEY_NOT_FOUND');
    expectProblem(await del(`/api-keys/${key.id}`, { token: other.token }), 404, 'API_KEY_NOT_FOUND');
    const list = await get('/api-keys?limit=100', { token: other.token });
    expect(list.body.data.map((k: { id: string }) => k.id)).not.to.include(key.id);
    expect(list.body.data).to.have.length(1);
    expect((await get(`/api-keys/${key.id}`, { token: business.token })).body.name).to.equal(key.name);
  });
});
