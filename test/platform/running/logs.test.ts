/**
 * The logs: JSON lines through pino, one per request with its request id,
 * operationId, status, latency and client id; and never a token, a client secret or a
 * webhook secret, searched over every line the services of this run have written. This
 * file's name sorts it late, but the search runs again in the root `afterAll` hook
 * (test/support/service.ts) over the whole suite's output.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { get, post } from '../../support/client.js';
import { newBusiness } from '../../support/fixtures.js';
import { LEAKS } from '../../support/leaks.js';
import { LOG_FILE } from '../../support/service.js';
import { testSecret } from '../../support/webhooks.js';

/** The parsed log lines written so far. */
function lines(): Record<string, unknown>[] {
  return readFileSync(LOG_FILE, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('logs', () => {
  it('one JSON line per request with request id, operationId, status, latency and client id', async () => {
    const b = await newBusiness();
    const res = await get('/cl/v1/wallets', { token: b.token, headers: { 'X-Request-Id': 'log-line-probe' } });
    expect(res.status).to.equal(200);
    const line = lines().find((l) => l.req_id === 'log-line-probe');
    expect(line).to.include({ msg: 'request', method: 'GET', path: '/cl/v1/wallets', operation_id: 'listWallets', status: 200, level: 30 });
    expect(line!.ms).to.be.a('number');
    expect(line!.client_id).to.be.a('string').and.match(/^bus_/);
  });

  it('never holds a token or a secret sent to the service', async () => {
    const b = await newBusiness();
    const secret = testSecret();
    expect((await post('/cl/v1/webhooks/endpoints', { url: 'https://example.com/hooks', secret, events: ['topup.complete'] }, { token: b.token })).status).to.equal(200);
    await post('/cl/v1/webhooks/endpoints', { url: 'https://example.com/hooks', secret: 'whsec_test_abcdefghijklmnop', events: ['topup.complete'] }, { token: b.token });
    await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' });
    const text = readFileSync(LOG_FILE, 'utf8');
    expect(text.length).to.be.greaterThan(1000);
    for (const [what, pattern] of LEAKS) expect(pattern.test(text), `the logs hold ${what}`).to.equal(false);
  });
});
