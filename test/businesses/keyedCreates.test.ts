/**
 * Every create is safe to retry: `createWallet`, `createLabel`, `createWebhookEndpoint`,
 * `createApiKey`, `invitePortalUser` and `createBusiness` (both documents) take an `Idempotency-Key` with the money movements'
 * semantics: the same key and body replay the first answer (`Idempotent-Replayed: true`) and
 * create nothing; another body is 422 `IDEMPOTENCY_KEY_REUSED`; a typed refusal is replayed
 * as it was; concurrent duplicates create one thing.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { get, post, type ApiResponse } from '../support/client.js';
import { newBusiness, platformToken, uniq, type TestBusiness } from '../support/fixtures.js';
import { expectProblem } from '../support/assertions.js';
import { running } from '../support/service.js';
import { requestHash } from '../../src/kernel/idempotency/idempotency.js';
import { startReceiver, testSecret, type Receiver } from '../support/webhooks.js';

/** The ids a business's list returns (every page). */
async function listIds(path: string, token: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const res: ApiResponse = await get(`${path}?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { token });
    expect(res.status).to.equal(200);
    ids.push(...res.body.data.map((d: { id: string }) => d.id));
    cursor = res.body.has_more ? res.body.next_cursor : null;
  } while (cursor);
  return ids;
}

/** Two answers the same: status and body, the second marked replayed. */
function expectReplay(first: ApiResponse, again: ApiResponse): void {
  expect(again.status).to.equal(first.status);
  expect(again.body).to.deep.equal(first.body);
  expect(first.headers.get('idempotent-replayed')).to.equal(null);
  expect(again.headers.get('idempotent-replayed')).to.equal('true');
}

describe('creates are safe to retry (Idempotency-Key)', function () {
  let business: TestBusiness;
  let receiver: Receiver;

  before(async () => {
    business = await newBusiness();
    receiver = await startReceiver();
  });
  after(() => receiver?.close());

  const cases: { name: string; path: string; list: string; body: () => Record<string, unknown>; other: () => Record<string, unknown>; id: (r: ApiResponse) => Promise<string> | string }[] = [
    { name: 'createWallet', path: '/cl/v1/wallets', list: '/cl/v1/wallets', body: () => ({ name: 'Keyed wallet' }), other: () => ({ name: 'Another wallet' }), id: (r) => r.body.id },
    { name: 'createLabel', path: '/cl/v1/labels', list: '/cl/v1/labels', body: () => ({ name: `Keyed ${uniq()}` }), other: () => ({ name: `Other ${uniq()}` }), id: (r) => r.body.id },
    {
      name: 'createWebhookEndpoint',
      path: '/cl/v1/webhooks/endpoints',
      list: '/cl/v1/webhooks/endpoints',
      body: () => ({ url: receiver.url, secret: testSecret(), events: ['topup.complete'] }),
      other: () => ({ url: receiver.url, secret: testSecret(), events: ['payout.completed'] }),
      id: async () => (await listIds('/cl/v1/webhooks/endpoints', business.token))[0],
    },
  ];

  for (const c of cases) {
    it(`${c.name}: the same key and body replay the first answer and create nothing; another body is 422`, async () => {
      const key = randomUUID();
      const before = await listIds(c.list, business.token);
      const body = c.body();
      const first = await post(c.path, body, { token: business.token, idempotencyKey: key });
      expect(first.status, JSON.stringify(first.body)).to.be.oneOf([200, 201]);
      const again = await post(c.path, body, { token: business.token, idempotencyKey: key });
      expectReplay(first, again);
      const after = await listIds(c.list, business.token);
      expect(after.length, 'one created').to.equal(before.length + 1);
      expect(after).to.include(await c.id(first));
      expectProblem(await post(c.path, c.other(), { token: business.token, idempotencyKey: key }), 422, 'IDEMPOTENCY_KEY_REUSED');
      expect((await listIds(c.list, business.token)).length, 'nothing more created').to.equal(after.length);
      // Without a key, the same body creates again: the key is what makes it one.
      const unkeyed = await post(c.path, c.name === 'createLabel' ? c.other() : body, { token: business.token });
      expect(unkeyed.status).to.equal(first.status);
      expect((await listIds(c.list, business.token)).length).to.equal(after.length + 1);
    });
  }

  it('createWallet: concurrent duplicates create one wallet; each answer is the wallet or 409 IDEMPOTENCY_KEY_IN_USE', async () => {
    const b = await newBusiness();
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 6 }, () => post('/cl/v1/wallets', { name: 'Raced' }, { token: b.token, idempotencyKey: key })));
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).to.be.greaterThan(0);
    for (const a of answers.filter((x) => x.status !== 201)) {
      expectProblem(a, 409, 'IDEMPOTENCY_KEY_IN_USE');
      expect(a.headers.get('retry-after')).to.equal('1');
    }
    expect(new Set(created.map((a) => a.body.id)).size).to.equal(1);
    expect(await listIds('/cl/v1/wallets', b.token)).to.deep.equal([created[0].body.id]);
  });

  it('every create answers 409 IDEMPOTENCY_KEY_IN_USE (Retry-After) while a request with its key and body is in flight, and runs once it is not', async () => {
    const platform = await platformToken();
    const creates: { operationId: string; path: string; token: string; scope: string; body: Record<string, unknown> }[] = [
      { operationId: 'createWallet', path: '/cl/v1/wallets', token: business.token, scope: business.id, body: { name: 'In flight' } },
      { operationId: 'createLabel', path: '/cl/v1/labels', token: business.token, scope: business.id, body: { name: `In flight ${uniq()}` } },
      { operationId: 'createWebhookEndpoint', path: '/cl/v1/webhooks/endpoints', token: business.token, scope: business.id, body: { url: receiver.url, secret: testSecret(), events: ['payout.failed'] } },
      { operationId: 'createBusiness', path: '/cl/v1/businesses', token: platform, scope: 'sandbox-platform', body: { name: `In flight ${uniq()}` } },
      { operationId: 'createBusiness', path: '/businesses', token: platform, scope: 'sandbox-platform', body: { name: `In flight ${uniq()}` } },
      { operationId: 'createApiKey', path: '/api-keys', token: business.token, scope: business.id, body: { name: 'In flight', role: 'viewer' } },
      { operationId: 'invitePortalUser', path: '/portal-users', token: business.token, scope: business.id, body: { email: `in-flight-${uniq()}@example.com`, name: 'In flight', role: 'viewer' } },
      { operationId: 'createPayoutApproval', path: '/payout-approvals', token: business.token, scope: business.id, body: { payout: { payout_amount: '1.00', customer_id: randomUUID() } } },
    ];
    for (const c of creates) {
      const key = randomUUID();
      // The locks a request with this key and body holds while it runs (idempotency_lock.sql).
      const trx = await running().db.transaction();
      try {
        await trx.raw('SELECT idempotency_lock(?, ?, ?)', [c.scope, key, requestHash(c.operationId, {}, c.body)]);
        const inUse = await post(c.path, c.body, { token: c.token, idempotencyKey: key });
        expectProblem(inUse, 409, 'IDEMPOTENCY_KEY_IN_USE');
        expect(inUse.headers.get('retry-after'), c.path).to.equal('1');
      } finally {
        await trx.rollback();
      }
      const done = await post(c.path, c.body, { token: c.token, idempotencyKey: key });
      expect(done.status, `${c.path}: ${JSON.stringify(done.body)}`).to.be.oneOf([200, 201]);
    }
  });

  it('createLabel: a refusal under a key is replayed as it was, even once the name is free again elsewhere', async () => {
    const name = `Taken ${uniq()}`;
    expect((await post('/cl/v1/labels', { name }, { token: business.token })).status).to.equal(201);
    const key = randomUUID();
    const refused = await post('/cl/v1/labels', { name }, { token: business.token, idempotencyKey: key });
    expectProblem(refused, 409, 'LABEL_NAME_TAKEN');
    const again = await post('/cl/v1/labels', { name }, { token: business.token, idempotencyKey: key });
    expectProblem(again, 409, 'LABEL_NAME_TAKEN');
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body.request_id, 'the first answer, as it was').to.equal(refused.body.request_id);
  });

  for (const [document, path] of [
    ['closed-loop', '/cl/v1/businesses'],
    ['core', '/businesses'],
  ] as const) {
    it(`createBusiness (${document}): a retry with the key answers the same business and credentials, and creates no second one`, async () => {
      const token = await platformToken();
      const key = randomUUID();
      const name = `Keyed business ${uniq()}`;
      const first = await post(path, { name }, { token, idempotencyKey: key });
      expect(first.status).to.equal(201);
      const again = await post(path, { name }, { token, idempotencyKey: key });
      expectReplay(first, again);
      const named = [];
      let cursor: string | null = null;
      do {
        const page: ApiResponse = await get(`/cl/v1/businesses?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { token });
        named.push(...page.body.data.filter((b: { name: string }) => b.name === name));
        cursor = page.body.has_more ? page.body.next_cursor : null;
      } while (cursor);
      expect(named.map((b) => b.id)).to.deep.equal([first.body.id]);
      // The answer kept for replays holds the client secret sealed, never as it was sent.
      const kept = await running().db('idempotency_keys').where({ key }).first();
      expect(JSON.stringify(kept.response_body)).to.not.include(first.body.credentials.client_secret);
      expectProblem(await post(path, { name: `${name} 2` }, { token, idempotencyKey: key }), 422, 'IDEMPOTENCY_KEY_REUSED');
    });
  }
});
