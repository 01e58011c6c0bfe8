/**
 * HTTP protocol behaviour integrators and browsers rely on: CORS (preflight and
 * exposed headers, allowed origins), `Allow` on 405, `WWW-Authenticate` on 401 and
 * the RateLimit header fields. CORS preflights are answered by the CORS layer before
 * routing and are not operations of the documents (see openapi/DESIGN.md), so they
 * are sent with plain fetch; every other response goes through the contract check.
 */
import { expect } from 'chai';
import { expectProblem } from '../support/assertions.js';
import { get, request } from '../support/client.js';
import { newBusiness } from '../support/fixtures.js';
import { baseUrl, startExtraService } from '../support/service.js';

const preflight = (url: string, origin: string) =>
  fetch(url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,idempotency-key,x-api-version' },
  });

describe('CORS', () => {
  it('answers a preflight with 204, the allowed methods and request headers', async () => {
    const res = await preflight(`${baseUrl()}/cl/v1/transfers`, 'https://docs.example.com');
    expect(res.status).to.equal(204);
    expect(res.headers.get('access-control-allow-origin')).to.equal('*');
    expect(res.headers.get('access-control-allow-methods')).to.include('POST');
    const allowed = res.headers.get('access-control-allow-headers')!.toLowerCase();
    for (const h of ['authorization', 'content-type', 'idempotency-key', 'x-api-version']) expect(allowed).to.include(h);
  });

  it('sends Access-Control-Allow-Origin and exposes the headers clients read, on success and error responses', async () => {
    const ok = await get('/openapi/closed-loop.json', { headers: { origin: 'https://docs.example.com' } });
    expect(ok.headers.get('access-control-allow-origin')).to.equal('*');
    const exposed = ok.headers.get('access-control-expose-headers')!.toLowerCase();
    for (const h of ['x-request-id', 'idempotent-replayed', 'retry-after', 'ratelimit-remaining']) expect(exposed).to.include(h);
    const denied = await get('/cl/v1/wallets', { headers: { origin: 'https://docs.example.com' } });
    expect(denied.status).to.equal(401);
    expect(denied.headers.get('access-control-allow-origin')).to.equal('*');
    expect((await get('/ping')).headers.get('access-control-allow-origin'), 'every origin allowed: * everywhere').to.equal('*');
  });

  it('with CORS_ORIGINS, answers only the listed origins, echoing them', async () => {
    const narrow = await startExtraService({ corsOrigins: ['https://docs.example.com'] });
    try {
      const allowed = await get('/ping', { baseUrl: narrow.url, headers: { origin: 'https://docs.example.com' } });
      expect(allowed.headers.get('access-control-allow-origin')).to.equal('https://docs.example.com');
      const other = await get('/ping', { baseUrl: narrow.url, headers: { origin: 'https://evil.example.net' } });
      expect(other.status).to.equal(200);
      expect(other.headers.get('access-control-allow-origin')).to.equal(null);
      expect((await get('/ping', { baseUrl: narrow.url })).headers.get('access-control-allow-origin'), 'no Origin').to.equal(null);
      expect((await preflight(`${narrow.url}/cl/v1/transfers`, 'https://evil.example.net')).headers.get('access-control-allow-origin')).to.equal(null);
    } finally {
      await narrow.close();
    }
  });
});

describe('protocol headers', () => {
  it('405 METHOD_NOT_ALLOWED carries Allow with the methods the path has', async () => {
    const res = await request('PUT', '/cl/v1/transfers');
    expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).to.equal('POST');
    const wallet = await request('DELETE', '/cl/v1/wallets/7d9f0e39-6f5c-4c38-9a51-6d3c2b8f1a11');
    expectProblem(wallet, 405, 'METHOD_NOT_ALLOWED');
    expect(wallet.headers.get('allow')).to.equal('GET, PATCH');
  });

  it('401 carries WWW-Authenticate: Bearer, with error="invalid_token" when a token was sent', async () => {
    const none = await get('/cl/v1/wallets');
    expectProblem(none, 401, 'UNAUTHORIZED');
    expect(none.headers.get('www-authenticate')).to.equal('Bearer realm="wallet-service"');
    const bad = await get('/cl/v1/wallets', { token: 'not.a.token' });
    expectProblem(bad, 401, 'UNAUTHORIZED');
    expect(bad.headers.get('www-authenticate')).to.match(/^Bearer realm="wallet-service", error="invalid_token"/);
  });

  it('counts authenticated requests in the RateLimit header fields', async () => {
    const limited = await startExtraService({ rateLimitPerMinute: 50 });
    try {
      const b = await newBusiness();
      const first = await get('/cl/v1/wallets', { token: b.token, baseUrl: limited.url });
      const second = await get('/cl/v1/wallets', { token: b.token, baseUrl: limited.url });
      expect(first.headers.get('ratelimit-limit')).to.equal('50');
      expect(Number(first.headers.get('ratelimit-remaining')) - Number(second.headers.get('ratelimit-remaining'))).to.equal(1);
      expect(Number(second.headers.get('ratelimit-reset'))).to.be.within(0, 60);
      expect((await get('/health', { baseUrl: limited.url })).headers.get('ratelimit-limit'), 'probes are not counted').to.equal(null);
    } finally {
      await limited.close();
    }
  });
});
