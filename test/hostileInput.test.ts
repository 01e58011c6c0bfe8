import { expect } from 'chai';
import { get, post, request } from './support/client.js';
import { newBusiness, newWallet } from './support/fixtures.js';

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
});
