/**
 * Pinned API versions, as an integrator sees them: a business's default version (set at
 * creation, read and changed through the API) is what its requests without `X-API-Version`
 * get; the header still wins; a platform request without it gets the default version. A
 * webhook endpoint carries its own `api_version` (the business's when left out) and its
 * deliveries say which version their data is rendered at.
 */
import { expect } from 'chai';
import { get, post, request } from '../support/client.js';
import { expectProblem } from '../support/assertions.js';
import { newBusiness, platformToken, tokenFor, uniq } from '../support/fixtures.js';
import { receiversOfSuite, testSecret, verifyDelivery } from '../support/webhooks.js';

const patch = (path: string, body: unknown, opts: { token: string }) => request('PATCH', path, { ...opts, body });

/** A new business created with `body` (through the platform client) and a token of its own client. */
async function businessWith(body: Record<string, unknown>): Promise<{ id: string; token: string; api_version: string }> {
  const res = await post('/cl/v1/businesses', { name: `Business ${uniq()}`, ...body }, { token: await platformToken() });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return { id: res.body.id, api_version: res.body.api_version, token: await tokenFor(res.body.credentials.client_id, res.body.credentials.client_secret) };
}

describe('pinned API versions: a business\'s default version', () => {
  it('is v1 unless set at creation; a business pinned to v2 gets v2 without the header, the header still wins', async () => {
    expect((await businessWith({})).api_version).to.equal('v1');
    const b = await businessWith({ api_version: 'v2' });
    expect(b.api_version).to.equal('v2');
    expect((await get(`/cl/v1/businesses/${b.id}`, { token: b.token })).body.api_version).to.equal('v2');
    const pinned = await get('/cl/v1/wallets', { token: b.token });
    expect(pinned.status).to.equal(200);
    expect(pinned.headers.get('x-api-version')).to.equal('v2');
    expect((await get('/cl/v1/wallets', { token: b.token, headers: { 'X-API-Version': 'v3' } })).headers.get('x-api-version')).to.equal('v3');
    expect((await get('/cl/v1/businesses', { token: await platformToken() })).headers.get('x-api-version'), 'a platform request').to.equal('v1');
    expect((await get('/ping')).headers.get('x-api-version'), 'an unauthenticated request').to.equal('v1');
  });

  it('is changed by updateBusiness, by the business itself or the platform, and takes effect on the next request', async () => {
    const b = await newBusiness();
    const res = await patch(`/cl/v1/businesses/${b.id}`, { api_version: 'v3' }, { token: b.token });
    expect(res.status).to.equal(200);
    expect(res.body.api_version).to.equal('v3');
    expect((await get('/cl/v1/wallets', { token: b.token })).headers.get('x-api-version')).to.equal('v3');
    const byPlatform = await patch(`/cl/v1/businesses/${b.id}`, { api_version: 'v2' }, { token: await platformToken() });
    expect(byPlatform.body.api_version).to.equal('v2');
  });

  it('refuses an unknown version and another business, changing nothing; an empty body changes nothing', async () => {
    const b = await newBusiness();
    const other = await newBusiness();
    expectProblem(await patch(`/cl/v1/businesses/${b.id}`, { api_version: 'v9' }, { token: b.token }), 400, 'VALIDATION_ERROR');
    const before = (await get(`/cl/v1/businesses/${b.id}`, { token: b.token })).body;
    const empty = await patch(`/cl/v1/businesses/${b.id}`, {}, { token: b.token });
    expect(empty.status).to.equal(200);
    expect(empty.body).to.deep.equal(before);
    expectProblem(await patch(`/cl/v1/businesses/${other.id}`, { api_version: 'v2' }, { token: b.token }), 404, 'BUSINESS_NOT_FOUND');
    expect((await get(`/cl/v1/businesses/${other.id}`, { token: other.token })).body.api_version).to.equal('v1');
    expect((await get(`/cl/v1/businesses/${b.id}`, { token: b.token })).body.api_version).to.equal('v1');
  });
});

describe('pinned API versions: webhook endpoints', function () {
  this.timeout(60_000);
  const receiver = receiversOfSuite();

  const register = async (token: string, url: string, extra: Record<string, unknown> = {}) => {
    const secret = testSecret();
    expect((await post('/cl/v1/webhooks/endpoints', { url, secret, events: ['topup.complete'], ...extra }, { token })).status).to.equal(200);
    const list = await get('/cl/v1/webhooks/endpoints', { token });
    return { endpoint: list.body.data.find((e: { url: string }) => e.url === url), secret };
  };

  it('take the business\'s version unless given one, and change it by update', async () => {
    const b = await businessWith({ api_version: 'v2' });
    const { endpoint: inherited } = await register(b.token, `https://hooks.example.com/${uniq()}`);
    expect(inherited.api_version).to.equal('v2');
    const { endpoint: given } = await register(b.token, `https://hooks.example.com/${uniq()}`, { api_version: 'v1' });
    expect(given.api_version).to.equal('v1');
    const updated = await patch(`/cl/v1/webhooks/endpoints/${given.id}`, { api_version: 'v3' }, { token: b.token });
    expect(updated.body.api_version).to.equal('v3');
  });

  it('an endpoint at v1 receives its events rendered at v1, saying so, though the business is pinned to v3', async () => {
    const b = await businessWith({ api_version: 'v3' });
    const hooks = await receiver();
    const { endpoint, secret } = await register(b.token, hooks.url, { api_version: 'v1' });
    expect((await post(`/cl/v1/webhooks/endpoints/${endpoint.id}/test-events`, {}, { token: b.token })).status).to.be.oneOf([200, 202]);
    const [delivery] = await hooks.waitFor(1);
    const envelope = verifyDelivery(secret, delivery!);
    expect(envelope).to.include({ code: 'webhook.test', webhook_id: endpoint.id, api_version: 'v1' });
  });
});
