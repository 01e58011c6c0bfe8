import { expect } from 'chai';
import { get, post, request } from '../support/client.js';
import { newBusiness, newWallet, platformToken } from '../support/fixtures.js';
import { expectProblem, expectValidation } from '../support/assertions.js';
import { accessOf, documentedOperations, exampleRequest, signatureHeaders } from '../support/operations.js';

/** No request causes a 5xx by its content: each of these must be a documented 2xx/4xx. */
describe('hostile input', () => {
  const cursor = (text: string) => Buffer.from(text).toString('base64url');

  it('extreme dates and forged cursors are answered without a 5xx', async () => {
    const b = await newBusiness();
    const wallet = await newWallet(b.token);
    const id = '7d9f0e39-6f5c-4c38-9a51-6d3c2b8f1a11';
    const paths = [
      '/cl/v1/transactions?created_from=0000-01-01T00:00:00Z',
      '/cl/v1/transactions?created_to=9999-12-31T23:59:59.999Z',
      '/cl/v1/transactions?created_from=1969-12-31T23:59:59-23:59',
      `/cl/v1/wallets/${wallet.id}/statement?from=0000-01-01T00:00:00Z`,
      `/cl/v1/wallets/${wallet.id}/statement?to=9999-12-31T23:59:59Z`,
      `/cl/v1/wallets?cursor=${cursor(`-100000-01-01T00:00:00.000Z|${id}`)}`,
      `/cl/v1/wallets?cursor=${cursor(`+275760-09-13T00:00:00.000Z|${id}`)}`,
      `/cl/v1/labels?cursor=${cursor(`2026-11-21T10:15:30.123Z|${'z'.repeat(36)}`)}`,
      `/cl/v1/wallets/lookup?name=${encodeURIComponent('a\u0000b')}`,
    ];
    for (const path of paths) {
      const res = await get(path, { token: b.token });
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).to.be.below(500);
    }
  });

  it('odd bodies are 400s, not 5xx', async () => {
    const b = await newBusiness();
    const bodies = ['[]', '"text"', '123', 'null', '{"__proto__":{"x":1}}', '{"name":"a\\u0000b"}', '{"name":"' + 'x'.repeat(300) + '"}'];
    for (const rawBody of bodies) {
      const res = await request('POST', '/cl/v1/wallets', { token: b.token, rawBody, headers: { 'content-type': 'application/json' } });
      expect(res.status, `${rawBody.slice(0, 40)}: ${JSON.stringify(res.body)}`).to.equal(400);
    }
    const huge = await post('/cl/v1/labels', { name: 'x', description: 'y'.repeat(2_000_000) }, { token: b.token });
    expect(huge.status).to.equal(400);
  });

  it('a lone UTF-16 surrogate is refused with 400 naming the field, and nothing is stored', async () => {
    const b = await newBusiness();
    const before = await get('/cl/v1/wallets', { token: b.token });
    for (const escape of ['\\ud800', '\\udfff', 'a\\udc00b']) {
      const rawBody = `{"name":"Wallet ${escape}"}`;
      const res = await request('POST', '/cl/v1/wallets', { token: b.token, rawBody, headers: { 'content-type': 'application/json' } });
      expectValidation(res, '/name');
    }
    // A surrogate pair (one emoji) is a character like any other.
    const emoji = await request('POST', '/cl/v1/wallets', { token: b.token, rawBody: '{"name":"Wallet \\ud83d\\ude00"}', headers: { 'content-type': 'application/json' } });
    expect(emoji.status, JSON.stringify(emoji.body)).to.equal(201);
    expect(emoji.body.name).to.equal('Wallet \u{1F600}');
    const after = await get('/cl/v1/wallets', { token: b.token });
    expect(after.body.data.length).to.equal(before.body.data.length + 1);
  });
});

/**
 * The shared rules every operation follows (shared.yaml `ApiVersionParameter`, the
 * `Invalid…` responses and `Problem`): an unsupported X-API-Version is 400
 * UNSUPPORTED_API_VERSION, an unknown query parameter 400 VALIDATION_ERROR naming it,
 * and a problem repeats the request's text only within its documented lengths.
 */
describe('the shared rules, on every operation', () => {
  it('a 2,000-character X-API-Version is 400 UNSUPPORTED_API_VERSION with a detail cut to 1,000 characters', async () => {
    const res = await get('/health', { headers: { 'x-api-version': 'v'.repeat(2_000) } });
    expectProblem(res, 400, 'UNSUPPORTED_API_VERSION');
    expect([...res.body.detail]).to.have.length(1_000);
    expect(res.body.detail).to.match(/^X-API-Version "vvv.*…$/);
  });

  it('a 5,000-character path is answered with an instance cut to 2,048 characters, still a URI reference', async () => {
    const b = await newBusiness();
    const res = await get(`/cl/v1/wallets/${'A'.repeat(5_000)}`, { token: b.token });
    expect(res.status).to.equal(400);
    expect(res.body.instance).to.have.length.at.most(2_048);
    expect(res.body.instance).to.match(/^\/cl\/v1\/wallets\/A+%E2%80%A6$/);
    const unrouted = await get(`/${'%41'.repeat(2_000)}`);
    expect(unrouted.status).to.equal(404);
    expect(unrouted.body.instance).to.have.length.at.most(2_048);
    expect(unrouted.body.instance, 'never cut inside a percent-escape').to.match(/^(\/(%41)+)%E2%80%A6$/);
  });

  it('a long unknown parameter name is named in a pointer cut to 300 characters', async () => {
    const res = await get(`/ping?${'p'.repeat(400)}=1`);
    expectValidation(res, `/query/${'p'.repeat(292)}…`);
  });

  it('an empty, repeated or differently written X-API-Version is 400 UNSUPPORTED_API_VERSION on every operation, before the token is looked at', async () => {
    for (const op of documentedOperations) {
      for (const version of ['', 'V1', 'v1, v2']) {
        const res = await request(op.method, op.path, { headers: { 'x-api-version': version } });
        expectProblem(res, 400, 'UNSUPPORTED_API_VERSION');
      }
    }
    expect((await get('/ping', { headers: { 'x-api-version': 'v2' } })).headers.get('x-api-version')).to.equal('v2');
  });

  it('an unknown query parameter is 400 VALIDATION_ERROR naming it on every operation, the seven without parameters included', async () => {
    const b = await newBusiness();
    const platform = await platformToken();
    for (const op of documentedOperations) {
      const token = accessOf(op.operationId) === 'platform' ? platform : b.token;
      for (const name of ['foo', '__proto__']) {
        const { path, body } = exampleRequest(op);
        const target = `${path}${path.includes('?') ? '&' : '?'}${name}=1`;
        const headers = signatureHeaders(op, body);
        const res = await request(op.method, target, { token, body, headers });
        expectValidation(res, `/query/${name}`);
      }
    }
  });
});
