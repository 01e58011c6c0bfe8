/**
 * Rate limits for unauthenticated requests: requests with no or a bad token are rate-limited per address,
 * and the limits are shared by every instance through PostgreSQL (two instances
 * allow the documented limit in all, not twice it). Two extra instances run on a
 * database of their own, so that no other test's requests count.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { RunningService } from '../../../src/server.js';
import { expectProblem } from '../../support/assertions.js';
import { get, post, type ApiResponse } from '../../support/client.js';
import { running, startExtraService } from '../../support/service.js';

const PER_CLIENT = 4;
const PER_ADDRESS = 3;

describe('rate limits shared by all instances (PostgreSQL store)', () => {
  const database = `wallet_limits_${randomUUID().slice(0, 8)}`;
  let instances: RunningService[] = [];
  /** The instance of the i-th request: the two take turns. */
  const at = (i: number) => instances[i % 2].url;

  before(async function () {
    this.timeout(120_000);
    await running().db.raw(`CREATE DATABASE ${database}`);
    const limits = { rateLimitPerMinute: PER_CLIENT, rateLimitPerAddressPerMinute: PER_ADDRESS };
    instances = [await startExtraService(limits, database), await startExtraService(limits, database)];
  });

  after(async function () {
    this.timeout(60_000);
    await Promise.all(instances.map((s) => s.close()));
    await running().db.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  it(`two instances together allow a client ${PER_CLIENT} requests a minute, not ${PER_CLIENT} each`, async () => {
    // The token request counts against the address (1 of its 3).
    const token = await post('/auth/token', { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' }, { baseUrl: at(0) });
    expect(token.status, JSON.stringify(token.body)).to.equal(200);
    expect(token.headers.get('ratelimit-remaining')).to.equal(String(PER_ADDRESS - 1));
    const statuses: number[] = [];
    let limited: ApiResponse | undefined;
    for (let i = 0; i < PER_CLIENT + 2; i++) {
      const res = await get('/cl/v1/wallets', { token: token.body.access_token, baseUrl: at(i) });
      statuses.push(res.status);
      if (res.status === 429) limited ??= res;
    }
    expect(statuses).to.deep.equal([...Array(PER_CLIENT).fill(200), 429, 429]);
    expectProblem(limited!, 429, 'RATE_LIMITED');
    expect(Number(limited!.headers.get('retry-after'))).to.be.within(1, 60);
    expect(limited!.headers.get('ratelimit-remaining')).to.equal('0');
  });

  it(`requests without a valid token count against their address: ${PER_ADDRESS} a minute over both instances, then 429 instead of 401`, async () => {
    // 1 of the address's 3 went to the token request above.
    const noToken = await get('/cl/v1/wallets', { baseUrl: at(1) });
    expectProblem(noToken, 401, 'UNAUTHORIZED');
    expect(noToken.headers.get('ratelimit-remaining')).to.equal('1');
    const badToken = await get('/cl/v1/wallets', { token: 'not.a.token', baseUrl: at(0) });
    expectProblem(badToken, 401, 'UNAUTHORIZED');
    expect(badToken.headers.get('ratelimit-remaining')).to.equal('0');
    for (const [i, token] of [[1, undefined], [0, 'not.a.token'], [1, 'x']] as const) {
      const res = await get('/cl/v1/wallets', { token, baseUrl: at(i) });
      expectProblem(res, 429, 'RATE_LIMITED');
      expect(Number(res.headers.get('retry-after'))).to.be.within(1, 60);
    }
    const tokenRequest = await post('/auth/token', { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'wrong' }, { baseUrl: at(0) });
    expectProblem(tokenRequest, 429, 'RATE_LIMITED');
  });

  it('a limited address does not stop a client that holds a valid token', async () => {
    const token = await post('/auth/token', { grant_type: 'client_credentials', client_id: 'sandbox-platform', client_secret: 'sandbox-platform-secret' }, { baseUrl: running().url });
    const res = await get('/cl/v1/businesses', { token: token.body.access_token, baseUrl: at(1) });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });

  it('with leases of several points (a limit of 200: 2 at a time), two instances together still admit at most the limit', async function () {
    this.timeout(120_000);
    const leased = await Promise.all([
      startExtraService({ rateLimitPerMinute: 200, rateLimitPerAddressPerMinute: 1000 }, database),
      startExtraService({ rateLimitPerMinute: 200, rateLimitPerAddressPerMinute: 1000 }, database),
    ]);
    try {
      const token = await post('/auth/token', { grant_type: 'client_credentials', client_id: 'sandbox-platform', client_secret: 'sandbox-platform-secret' }, { baseUrl: leased[0].url });
      const statuses: number[] = [];
      for (let i = 0; i < 215; i += 5) {
        const batch = await Promise.all([0, 1, 2, 3, 4].map((j) => get('/cl/v1/businesses', { token: token.body.access_token, baseUrl: leased[(i + j) % 2].url })));
        statuses.push(...batch.map((r) => r.status));
      }
      const admitted = statuses.filter((s) => s === 200).length;
      expect(statuses.filter((s) => s !== 200 && s !== 429), 'only 200 and 429').to.deep.equal([]);
      // At most one leased point per instance may be left unspent.
      expect(admitted).to.be.within(198, 200);
    } finally {
      await Promise.all(leased.map((s) => s.close()));
    }
  });

  it('with leases refilled ahead (a limit of 2,000: 20 at a time, the next taken when 10 are left), two instances together still admit at most the limit', async function () {
    this.timeout(180_000);
    // A database of its own: the tests above spent points of the same client's window.
    const own = `${database}_ahead`;
    await running().db.raw(`CREATE DATABASE ${own}`);
    const limits = { rateLimitPerMinute: 2000, rateLimitPerAddressPerMinute: 100_000 };
    const leased = [await startExtraService(limits, own), await startExtraService(limits, own)]; // one after the other: the first migrates
    try {
      const token = await post('/auth/token', { grant_type: 'client_credentials', client_id: 'sandbox-platform', client_secret: 'sandbox-platform-secret' }, { baseUrl: leased[0].url });
      const statuses: number[] = [];
      for (let i = 0; i < 2100; i += 20) {
        const batch = await Promise.all(Array.from({ length: 20 }, (_, j) => get('/cl/v1/businesses?limit=1', { token: token.body.access_token, baseUrl: leased[(i + j) % 2].url })));
        statuses.push(...batch.map((r) => r.status));
      }
      const admitted = statuses.filter((s) => s === 200).length;
      expect(statuses.filter((s) => s !== 200 && s !== 429), 'only 200 and 429').to.deep.equal([]);
      // Each instance holds at most 1.5 leases: at most 29 points per instance left unspent.
      expect(admitted).to.be.within(2000 - 2 * 29, 2000);
      expect(statuses.slice(-20), 'the last requests, past the limit').to.deep.equal(Array(20).fill(429));
    } finally {
      await Promise.all(leased.map((s) => s.close()));
      await running().db.raw(`DROP DATABASE IF EXISTS ${own} WITH (FORCE)`);
    }
  });
});
