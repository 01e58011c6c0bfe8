import { expect } from 'chai';
import { assertMatchesContract } from './support/contract.js';

/** The contract check every test relies on must itself reject departures from the documents. */
describe('contract check', () => {
  const headers = (extra: Record<string, string> = {}) =>
    new Headers({ 'content-type': 'application/json', 'x-request-id': 'r1', 'x-api-version': 'v1', ...extra });
  const pong = { message: 'pong', timestamp: '2026-11-21T10:15:30.123Z' };

  it('accepts a documented response', () => {
    expect(() => assertMatchesContract({ method: 'GET', path: '/ping', status: 200, headers: headers(), body: pong })).not.to.throw();
  });

  it('rejects an undocumented status', () => {
    expect(() => assertMatchesContract({ method: 'GET', path: '/ping', status: 503, headers: headers(), body: pong })).to.throw(
      /status 503 is not documented/,
    );
  });

  it('rejects a body that does not match the schema', () => {
    expect(() =>
      assertMatchesContract({ method: 'GET', path: '/ping', status: 200, headers: headers(), body: { message: 'pong' } }),
    ).to.throw(/schema/);
  });

  it('rejects an undocumented media type and a missing required header', () => {
    expect(() =>
      assertMatchesContract({ method: 'GET', path: '/ping', status: 200, headers: headers({ 'content-type': 'text/plain' }), body: pong }),
    ).to.throw(/media type/);
    const noRequestId = new Headers({ 'content-type': 'application/json', 'x-api-version': 'v1' });
    expect(() => assertMatchesContract({ method: 'GET', path: '/ping', status: 200, headers: noRequestId, body: pong })).to.throw(
      /X-Request-Id is missing/,
    );
  });

  it('rejects money as a number in a closed-loop response', () => {
    const body = { wallet_id: '7d9f0e39-6f5c-4c38-9a51-6d3c2b8f1a11', account_number: '900000000019', currency: 'SAR', balance: 10, can_overdraft: false, as_of: '2026-11-21T10:15:30.123Z' };
    expect(() =>
      assertMatchesContract({ method: 'GET', path: '/cl/v1/wallets/7d9f0e39-6f5c-4c38-9a51-6d3c2b8f1a11/balance', status: 200, headers: headers(), body }),
    ).to.throw(/balance/);
  });
});
