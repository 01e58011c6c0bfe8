import { expect } from 'chai';
import { AppError } from '../../../src/kernel/errors.js';
import { issueToken, TokenVerifier } from '../../../src/http/auth.js';
import type { Principal } from '../../../src/kernel/services.js';
import { get } from '../../support/client.js';
import { expectProblem } from '../../support/assertions.js';

const key = new TextEncoder().encode('token-cache-test-secret-0123456789');
const business: Principal = { kind: 'BUSINESS', clientId: 'c1', businessId: '7d9f0e39-6f5c-4c38-9a51-6d3c2b8f1a11' };

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected a rejection');
}

describe('bearer tokens: the cache of verified tokens', () => {
  it('verifies a token once, then serves the same principal from the cache', async () => {
    const verifier = new TokenVerifier(key);
    const token = await issueToken(business, key, 60);
    const first = await verifier.verify(`Bearer ${token}`);
    expect(first).to.deep.equal(business);
    expect(verifier.size).to.equal(1);
    expect(await verifier.verify(`Bearer ${token}`)).to.equal(first);
    expect(Object.isFrozen(first), 'a shared principal cannot be changed by one request').to.equal(true);
  });

  it('caches nothing for a malformed, wrongly signed or tampered token', async () => {
    const verifier = new TokenVerifier(key);
    const token = await issueToken(business, key, 60);
    const other = await issueToken(business, new TextEncoder().encode('another-secret-another-secret-0000'), 60);
    expect((await rejection(verifier.verify('Bearer'))).code).to.equal('UNAUTHORIZED');
    expect((await rejection(verifier.verify(`Bearer ${other}`))).code).to.equal('UNAUTHORIZED');
    await verifier.verify(`Bearer ${token}`);
    const [header, payload, signature] = token.split('.');
    const tampered = `${header}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await rejection(verifier.verify(`Bearer ${tampered}`))).code).to.equal('UNAUTHORIZED');
    expect(verifier.size).to.equal(1);
  });

  it('stops accepting a cached token once it expires', async function () {
    this.timeout(5_000);
    const verifier = new TokenVerifier(key);
    const token = await issueToken(business, key, 1);
    await verifier.verify(`Bearer ${token}`);
    const exp = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).exp as number;
    await new Promise((r) => setTimeout(r, exp * 1000 - Date.now() + 50));
    const err = await rejection(verifier.verify(`Bearer ${token}`));
    expect(err.message).to.match(/invalid or expired/);
    expect(verifier.size).to.equal(0);
  });

  it('holds at most maxEntries tokens, dropping the oldest', async () => {
    const verifier = new TokenVerifier(key, 2);
    const tokens = await Promise.all(['a', 'b', 'c'].map((id) => issueToken({ ...business, clientId: id }, key, 60)));
    for (const t of tokens) await verifier.verify(`Bearer ${t}`);
    expect(verifier.size).to.equal(2);
    expect((await verifier.verify(`Bearer ${tokens[0]}`)).clientId).to.equal('a');
  });

  it('the service still answers 401 for a token it has never seen, after serving a cached one', async () => {
    expectProblem(await get('/cl/v1/wallets', { token: 'not.a.token' }), 401, 'UNAUTHORIZED');
  });
});
