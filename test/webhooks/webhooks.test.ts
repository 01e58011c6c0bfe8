import { expect } from 'chai';
import type { RunningService } from '../../src/server.js';
import { get, post } from '../support/client.js';
import { newBusiness, platformToken, uniq } from '../support/fixtures.js';
import { expectProblem } from '../support/assertions.js';
import { extraServiceHooks } from '../support/service.js';
import { testSecret } from '../support/webhooks.js';

const validEndpoint = () => ({
  url: `https://hooks.example.com/wallet-events/${uniq()}`,
  secret: testSecret(),
  events: ['topup.complete', 'payout.completed'],
});

describe('webhooks: createWebhookEndpoint', () => {
  it('answers 200 with exactly {}', async () => {
    const business = await newBusiness();
    const res = await post('/cl/v1/webhooks/endpoints', validEndpoint(), { token: business.token });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({});
  });

  const invalid: [string, (body: ReturnType<typeof validEndpoint>) => Record<string, unknown>, string][] = [
    ['an ftp:// url', (b) => ({ ...b, url: 'ftp://hooks.example.com/wallet-events' }), '/url'],
    ['a secret not in the whsec_ format', (b) => ({ ...b, secret: 'a-long-enough-secret-but-not-base64' }), '/secret'],
    ['a secret of fewer than 24 bytes', (b) => ({ ...b, secret: 'whsec_MDEyMzQ1Njc4OWFiY2RlZg==' }), '/secret'],
    ['empty events', (b) => ({ ...b, events: [] }), '/events'],
    ['an unknown event code', (b) => ({ ...b, events: ['wallet.exploded'] }), '/events/0'],
    ['a short secret', (b) => ({ ...b, secret: 'short' }), '/secret'],
    ['duplicate events', (b) => ({ ...b, events: ['topup.complete', 'topup.complete'] }), '/events'],
    ['a missing url', ({ url: _url, ...rest }) => rest, '/url'],
  ];
  for (const [what, make, pointer] of invalid) {
    it(`answers 400 VALIDATION_ERROR for ${what} and stores nothing`, async () => {
      const business = await newBusiness();
      const res = await post('/cl/v1/webhooks/endpoints', make(validEndpoint()), { token: business.token });
      expectProblem(res, 400, 'VALIDATION_ERROR');
      expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).to.include(pointer);
      const list = await get('/cl/v1/webhooks/endpoints', { token: business.token });
      expect(list.body.data).to.deep.equal([]);
    });
  }

  it('answers 403 FORBIDDEN for a platform token', async () => {
    const res = await post('/cl/v1/webhooks/endpoints', validEndpoint(), { token: await platformToken() });
    expectProblem(res, 403, 'FORBIDDEN');
  });
});

describe('webhooks: listWebhookEndpoints', () => {
  it('shows the registration as ENABLED with its events and without the secret', async () => {
    const business = await newBusiness();
    const endpoint = validEndpoint();
    expect((await post('/cl/v1/webhooks/endpoints', endpoint, { token: business.token })).status).to.equal(200);

    const res = await get('/cl/v1/webhooks/endpoints', { token: business.token });
    expect(res.status).to.equal(200);
    expect(res.body.data).to.have.length(1);
    const [item] = res.body.data;
    expect(item.id).to.match(/^[0-9a-f-]{36}$/);
    expect(item.url).to.equal(endpoint.url);
    expect(item.events).to.deep.equal(endpoint.events);
    expect(item.status).to.equal('ENABLED');
    expect(item.disabled_reason).to.equal(null);
    expect(item).to.not.have.property('secret');
    expect(JSON.stringify(res.body)).to.not.include(endpoint.secret);
    expect(res.body.has_more).to.equal(false);
    expect(res.body.next_cursor).to.equal(null);
  });

  it('lists newest first and paginates', async () => {
    const business = await newBusiness();
    const urls: string[] = [];
    for (let i = 0; i < 3; i++) {
      const endpoint = validEndpoint();
      urls.push(endpoint.url);
      expect((await post('/cl/v1/webhooks/endpoints', endpoint, { token: business.token })).status).to.equal(200);
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    const first = await get('/cl/v1/webhooks/endpoints?limit=2', { token: business.token });
    expect(first.status).to.equal(200);
    expect(first.body.data.map((e: { url: string }) => e.url)).to.deep.equal([urls[2], urls[1]]);
    expect(first.body.has_more).to.equal(true);
    const second = await get(`/cl/v1/webhooks/endpoints?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, { token: business.token });
    expect(second.status).to.equal(200);
    expect(second.body.data.map((e: { url: string }) => e.url)).to.deep.equal([urls[0]]);
    expect(second.body.has_more).to.equal(false);
  });

  it('does not show one business the endpoints of another', async () => {
    const owner = await newBusiness();
    const other = await newBusiness();
    expect((await post('/cl/v1/webhooks/endpoints', validEndpoint(), { token: owner.token })).status).to.equal(200);
    const res = await get('/cl/v1/webhooks/endpoints', { token: other.token });
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal([]);
    expect((await get('/cl/v1/webhooks/endpoints', { token: owner.token })).body.data).to.have.length(1);
  });
});

describe('webhooks: which URLs createWebhookEndpoint accepts', () => {
  const register = (token: string, url: string, baseUrl?: string) =>
    post('/cl/v1/webhooks/endpoints', { ...validEndpoint(), url }, { token, baseUrl });

  it('sandbox: accepts http and https to loopback addresses, and https to a public address', async () => {
    const business = await newBusiness();
    for (const url of ['http://127.0.0.1:4000/hooks', 'http://localhost:4000/hooks', 'https://[::1]:4443/hooks', 'https://93.184.215.14/hooks']) {
      const res = await register(business.token, url);
      expect(res.status, `${url}: ${JSON.stringify(res.body)}`).to.equal(200);
    }
  });

  it('sandbox: answers 400 WEBHOOK_URL_NOT_ALLOWED for http to a non-loopback host and for private addresses', async () => {
    const business = await newBusiness();
    for (const url of ['http://93.184.215.14/hooks', 'https://10.0.0.7/hooks', 'http://169.254.169.254/latest/meta-data', 'https://[fd00::1]/hooks', 'https://user:pw@127.0.0.1/hooks']) {
      const res = await register(business.token, url);
      expectProblem(res, 400, 'WEBHOOK_URL_NOT_ALLOWED');
      expect(res.body.errors[0].pointer, url).to.equal('/url');
    }
    expect((await get('/cl/v1/webhooks/endpoints', { token: business.token })).body.data).to.deep.equal([]);
  });

  describe('production (SANDBOX=false)', () => {
    let production: RunningService;
    extraServiceHooks({ sandbox: false }, (s) => (production = s));

    it('accepts only https to public addresses', async () => {
      const business = await newBusiness();
      expect((await register(business.token, 'https://93.184.215.14/hooks', production.url)).status).to.equal(200);
      for (const url of ['http://127.0.0.1:4000/hooks', 'https://127.0.0.1/hooks', 'https://localhost/hooks', 'https://192.168.1.10/hooks', 'https://[::ffff:10.0.0.1]/hooks', 'https://unresolvable.invalid/hooks', 'http://93.184.215.14/hooks']) {
        expectProblem(await register(business.token, url, production.url), 400, 'WEBHOOK_URL_NOT_ALLOWED');
      }
    });
  });
});
