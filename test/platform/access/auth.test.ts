import { expect } from 'chai';
import { SignJWT } from 'jose';
import { get, post, type ApiResponse } from '../../support/client.js';
import { assertMatchesContract } from '../../support/contract.js';
import { newBusiness, platformToken, uniq } from '../../support/fixtures.js';
import { startExtraService } from '../../support/service.js';
import { expectProblem } from '../../support/assertions.js';

const TEST_SECRET = 'test-secret-test-secret-test-secret';
const ISSUER = 'wallet-service';

/** An HS256 token with the service's claims, signed with `secret`, expiring at `exp` (seconds). */
async function signToken(secret: string, exp: number, claims: { sub: string; kind: string; bid: string | null }): Promise<string> {
  return new SignJWT({ kind: claims.kind, bid: claims.bid })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuer(ISSUER)
    .setIssuedAt(exp - 3600)
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(secret));
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Requests a client-credentials token; asserts 200 and a Bearer token for 3600 s of client kind `kind`; returns the response. */
async function issuedToken(clientId: string, clientSecret: string, kind: 'BUSINESS' | 'PLATFORM'): Promise<ApiResponse> {
  const res = await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
  expect(res.status).to.equal(200);
  expect(res.body.token_type).to.equal('Bearer');
  expect(res.body.expires_in).to.equal(3600);
  expect(res.body.client_kind).to.equal(kind);
  return res;
}

describe('auth: createToken', () => {
  it('issues a business token for the sandbox business client', async () => {
    const res = await issuedToken('demo-business', 'demo-business-secret', 'BUSINESS');
    expect(res.body.business_id).to.be.a('string').and.match(/^[0-9a-f-]{36}$/);
    expect(res.body.access_token).to.be.a('string').and.not.equal('');
    // The token works on a business operation.
    const wallets = await get('/cl/v1/wallets', { token: res.body.access_token });
    expect(wallets.status).to.equal(200);
  });

  it('issues a platform token with business_id null for the sandbox platform client', async () => {
    const res = await issuedToken('sandbox-platform', 'sandbox-platform-secret', 'PLATFORM');
    expect(res.body.business_id).to.equal(null);
    const businesses = await get('/cl/v1/businesses', { token: res.body.access_token });
    expect(businesses.status).to.equal(200);
  });

  it('answers 401 INVALID_CLIENT for a wrong secret', async () => {
    const res = await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: 'sandbox-platform', client_secret: 'not-the-secret' });
    expectProblem(res, 401, 'INVALID_CLIENT');
  });

  it('answers 401 INVALID_CLIENT for an unknown client', async () => {
    const res = await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: `nobody-${uniq()}`, client_secret: 'whatever-secret' });
    expectProblem(res, 401, 'INVALID_CLIENT');
  });

  it('answers 400 VALIDATION_ERROR pointing at /client_secret when it is missing', async () => {
    const res = await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: 'sandbox-platform' });
    expectProblem(res, 400, 'VALIDATION_ERROR');
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).to.include('/client_secret');
  });

  it('answers 400 VALIDATION_ERROR for grant_type password', async () => {
    const res = await post('/cl/v1/auth/token', { grant_type: 'password', client_id: 'sandbox-platform', client_secret: 'sandbox-platform-secret' });
    expectProblem(res, 400, 'VALIDATION_ERROR');
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).to.include('/grant_type');
  });

  it('answers 400 VALIDATION_ERROR for extra properties', async () => {
    const res = await post('/cl/v1/auth/token', {
      grant_type: 'client_credentials',
      client_id: 'sandbox-platform',
      client_secret: 'sandbox-platform-secret',
      audience: 'everything',
    });
    expectProblem(res, 400, 'VALIDATION_ERROR');
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).to.include('/audience');
  });

  it('answers 400 MALFORMED_JSON for a body that is not valid JSON', async () => {
    const res = await post('/cl/v1/auth/token', undefined, { rawBody: '{bad', headers: { 'content-type': 'application/json' } });
    expectProblem(res, 400, 'MALFORMED_JSON');
  });

  it('answers 400 UNSUPPORTED_MEDIA_TYPE for a text/plain body', async () => {
    const res = await post('/cl/v1/auth/token', undefined, {
      rawBody: 'grant_type=client_credentials&client_id=sandbox-platform&client_secret=sandbox-platform-secret',
      headers: { 'content-type': 'text/plain' },
    });
    expectProblem(res, 400, 'UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('auth: bearer tokens on protected operations', () => {
  it('answers 401 UNAUTHORIZED without an Authorization header', async () => {
    const res = await get('/cl/v1/wallets');
    expectProblem(res, 401, 'UNAUTHORIZED');
  });

  it('answers 401 UNAUTHORIZED for a garbage token', async () => {
    const res = await get('/cl/v1/wallets', { token: 'not-a-jwt' });
    expectProblem(res, 401, 'UNAUTHORIZED');
  });

  it('answers 401 UNAUTHORIZED for a non-Bearer Authorization header', async () => {
    const res = await get('/cl/v1/wallets', { headers: { authorization: 'Basic ZGVtby1idXNpbmVzczpkZW1vLWJ1c2luZXNzLXNlY3JldA==' } });
    expectProblem(res, 401, 'UNAUTHORIZED');
  });

  it('answers 401 UNAUTHORIZED for a token signed with another secret', async () => {
    const business = await newBusiness();
    const forged = await signToken('another-secret-another-secret-another', nowSeconds() + 3600, {
      sub: 'demo-business',
      kind: 'BUSINESS',
      bid: business.id,
    });
    const res = await get('/cl/v1/wallets', { token: forged });
    expectProblem(res, 401, 'UNAUTHORIZED');
  });

  it('answers 401 UNAUTHORIZED for an expired token signed with the real secret', async () => {
    const business = await newBusiness();
    const claims = { sub: 'demo-business', kind: 'BUSINESS', bid: business.id };
    // The same claims, validly signed and not expired, are accepted: only the expiry differs.
    const valid = await signToken(TEST_SECRET, nowSeconds() + 600, claims);
    expect((await get('/cl/v1/wallets', { token: valid })).status).to.equal(200);
    const expired = await signToken(TEST_SECRET, nowSeconds() - 60, claims);
    const res = await get('/cl/v1/wallets', { token: expired });
    expectProblem(res, 401, 'UNAUTHORIZED');
  });

  it('answers 403 FORBIDDEN for a platform token on a business operation', async () => {
    const res = await get('/cl/v1/wallets', { token: await platformToken() });
    expectProblem(res, 403, 'FORBIDDEN');
  });

  it('answers 403 FORBIDDEN for a business token on listBusinesses and createBusiness', async () => {
    const business = await newBusiness();
    const list = await get('/cl/v1/businesses', { token: business.token });
    expectProblem(list, 403, 'FORBIDDEN');
    const create = await post('/cl/v1/businesses', { name: `Business ${uniq()}` }, { token: business.token });
    expectProblem(create, 403, 'FORBIDDEN');
  });

  it('answers 403 for the wrong client kind before looking at the body, so that a body built to be costly costs nothing', async () => {
    // The body is invalid in every way; the token's kind alone decides.
    const business = await newBusiness();
    const create = await post('/cl/v1/businesses', { name: 12, extra: true }, { token: business.token });
    expectProblem(create, 403, 'FORBIDDEN');
    const wallet = await post('/cl/v1/wallets', { name: '' }, { token: await platformToken() });
    expectProblem(wallet, 403, 'FORBIDDEN');
  });
});

describe('auth: rate limit', () => {
  let extra: { url: string; close(): Promise<void> } | undefined;

  before(async function () {
    this.timeout(60_000);
    extra = await startExtraService({ rateLimitPerMinute: 2 });
  });

  after(async function () {
    this.timeout(60_000);
    await extra?.close();
  });

  it('answers 429 RATE_LIMITED with Retry-After past the per-minute limit', async () => {
    const business = await newBusiness();
    const path = '/cl/v1/wallets';
    const statuses: number[] = [];
    let limited: { status: number; headers: Headers; body: any } | undefined;
    // Five quick requests: even if a minute boundary falls between them, one window holds at least three.
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${extra!.url}${path}`, { headers: { authorization: `Bearer ${business.token}` } });
      const text = await res.text();
      const body = /json/.test(res.headers.get('content-type') ?? '') && text ? JSON.parse(text) : text;
      assertMatchesContract({ method: 'GET', path, status: res.status, headers: res.headers, body });
      statuses.push(res.status);
      if (res.status === 429 && !limited) limited = { status: res.status, headers: res.headers, body };
    }
    expect(statuses.slice(0, 2)).to.deep.equal([200, 200]);
    expect(limited, `statuses: ${statuses.join(', ')}`).to.not.equal(undefined);
    expect(limited!.body.code).to.equal('RATE_LIMITED');
    const retryAfter = limited!.headers.get('retry-after');
    expect(retryAfter).to.match(/^\d+$/);
    expect(Number(retryAfter)).to.be.within(0, 60);
  });
});
