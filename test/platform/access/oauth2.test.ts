/**
 * The token request as OAuth2 client libraries send it (RFC 6749 §4.4, §2.3.1): a
 * form body, HTTP Basic client authentication, one authentication method only.
 */
import { expect } from 'chai';
import { expectProblem } from '../../support/assertions.js';
import { get, request } from '../../support/client.js';

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const form = (fields: Record<string, string>) => ({
  rawBody: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

describe('auth: OAuth2 token request', () => {
  it('accepts a form body with the credentials in it', async () => {
    const res = await request('POST', '/cl/v1/auth/token', form({ grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' }));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.client_kind).to.equal('BUSINESS');
    expect((await get('/cl/v1/wallets', { token: res.body.access_token })).status).to.equal(200);
  });

  it('accepts HTTP Basic client authentication with a form body, and ignores scope', async () => {
    const res = await request('POST', '/cl/v1/auth/token', {
      ...form({ grant_type: 'client_credentials', scope: 'wallets' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('sandbox-platform', 'sandbox-platform-secret') },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.client_kind).to.equal('PLATFORM');
  });

  it('accepts HTTP Basic with a JSON body', async () => {
    const res = await request('POST', '/cl/v1/auth/token', {
      body: { grant_type: 'client_credentials' },
      headers: { authorization: basic('demo-business', 'demo-business-secret') },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });

  it('401 INVALID_CLIENT with WWW-Authenticate: Basic for wrong Basic credentials', async () => {
    const res = await request('POST', '/cl/v1/auth/token', {
      ...form({ grant_type: 'client_credentials' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('demo-business', 'wrong') },
    });
    expectProblem(res, 401, 'INVALID_CLIENT');
    expect(res.headers.get('www-authenticate')).to.equal('Basic realm="wallet-service"');
  });

  it('401 INVALID_CLIENT for a Basic header that holds no user:password', async () => {
    const res = await request('POST', '/cl/v1/auth/token', {
      body: { grant_type: 'client_credentials' },
      headers: { authorization: `Basic ${Buffer.from('no-colon').toString('base64')}` },
    });
    expectProblem(res, 401, 'INVALID_CLIENT');
  });

  it('400 VALIDATION_ERROR when the client authenticates both ways, or not at all', async () => {
    const both = await request('POST', '/cl/v1/auth/token', {
      ...form({ grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('demo-business', 'demo-business-secret') },
    });
    expectProblem(both, 400, 'VALIDATION_ERROR');
    expect(both.body.errors[0].pointer).to.equal('/client_id');
    const neither = await request('POST', '/cl/v1/auth/token', form({ grant_type: 'client_credentials' }));
    expectProblem(neither, 400, 'VALIDATION_ERROR');
    expect(neither.body.errors[0].pointer).to.equal('/client_id');
  });

  it('400 VALIDATION_ERROR for grant_type password in a form', async () => {
    const res = await request('POST', '/cl/v1/auth/token', form({ grant_type: 'password', client_id: 'demo-business', client_secret: 'demo-business-secret' }));
    expectProblem(res, 400, 'VALIDATION_ERROR');
  });

  it('refuses a form body on an operation that declares JSON only (400 UNSUPPORTED_MEDIA_TYPE)', async () => {
    const token = (await request('POST', '/cl/v1/auth/token', form({ grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' }))).body.access_token;
    const res = await request('POST', '/cl/v1/labels', { token, ...form({ name: 'from-a-form' }), headers: { ...form({}).headers, authorization: `Bearer ${token}` } });
    expectProblem(res, 400, 'UNSUPPORTED_MEDIA_TYPE');
  });
});
