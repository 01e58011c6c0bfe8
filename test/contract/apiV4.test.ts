/**
 * API version v4 on the real service, beside v1 (the default): each request is validated
 * against its own version's document; `createWebhookEndpoint` answers v4 with 201, the endpoint
 * and its `Location`; a version never shows a client a newer version than its document names;
 * and an event is rendered at every version whenever it was stored: one recorded before the
 * version change (in v3's shape) is delivered, redelivered and listed in each version's shape,
 * every payload valid against the document of the version that received it.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createAjv } from '../../src/http/apiBuild.js';
import { RELEASED_OPENAPI } from '../../src/paths.js';
import { expectProblem } from '../support/assertions.js';
import { get, post, request } from '../support/client.js';
import { newBusiness, newWallet, topup, type TestBusiness } from '../support/fixtures.js';
import { running } from '../support/service.js';
import { startReceiver, testSecret, verifyDelivery, type Receiver } from '../support/webhooks.js';

const v = (version: string) => ({ 'X-API-Version': version });

/** Validates a webhook envelope against the `webhooks` entry of `code` in `version`'s released closed-loop document; the errors, or null. */
function webhookProblem(version: string, code: string, envelope: unknown): string | null {
  const doc = JSON.parse(readFileSync(path.join(RELEASED_OPENAPI, version, 'closed-loop.json'), 'utf8'));
  const ajv = createAjv();
  const validate = ajv.compile({ ...doc.webhooks[code].post.requestBody.content['application/json'].schema, components: doc.components });
  return validate(envelope) ? null : ajv.errorsText(validate.errors);
}

/** Registers `receiver` for topup.complete at `version`; returns its id and secret. */
async function register(b: TestBusiness, receiver: Receiver, version: string): Promise<{ id: string; secret: string }> {
  const secret = testSecret();
  const res = await post('/cl/v1/webhooks/endpoints', { url: receiver.url, secret, events: ['topup.complete'], api_version: version }, { token: b.token, headers: v('v4') });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return { id: res.body.id, secret };
}

describe('API version v4 beside v1', function () {
  this.timeout(60_000);

  it('createWebhookEndpoint: 201 with the endpoint and its Location at v4, seed E3\'s 200 {} (with Location) at v1; a replay answers the same', async () => {
    const b = await newBusiness();
    const receiver = await startReceiver();
    try {
      const key = randomUUID();
      const body = { url: receiver.url, secret: testSecret(), events: ['payout.completed'] };
      const created = await post('/cl/v1/webhooks/endpoints', body, { token: b.token, headers: v('v4'), idempotencyKey: key });
      expect(created.status).to.equal(201);
      expect(created.body).to.include({ url: receiver.url, status: 'ENABLED', api_version: 'v1' });
      expect(created.headers.get('location')).to.equal(`/cl/v1/webhooks/endpoints/${created.body.id}`);
      expect((await get(created.headers.get('location')!, { token: b.token, headers: v('v4') })).body).to.deep.equal(created.body);
      const replay = await post('/cl/v1/webhooks/endpoints', body, { token: b.token, headers: v('v4'), idempotencyKey: key });
      expect([replay.status, replay.headers.get('location'), replay.headers.get('idempotent-replayed')]).to.deep.equal([201, created.headers.get('location'), 'true']);
      const atV1 = await post('/cl/v1/webhooks/endpoints', { ...body, events: ['payout.failed'] }, { token: b.token });
      expect([atV1.status, atV1.body]).to.deep.equal([200, {}]);
      expect(atV1.headers.get('location')).to.match(/^\/cl\/v1\/webhooks\/endpoints\/[0-9a-f-]{36}$/);
    } finally {
      await receiver.close();
    }
  });

  it('validates a request against its own version\'s document: v4\'s payout fields are refused at v1, v1\'s at v4', async () => {
    const b = await newBusiness();
    const payout = (version: string, receiver: Record<string, string>) =>
      post('/payouts/', { payout_amount: '1.00', ...receiver }, { token: b.token, headers: v(version), idempotencyKey: randomUUID() });
    const v1 = await payout('v1', { mobile_number: '966500000001' });
    expectProblem(v1, 400, 'VALIDATION_ERROR');
    expect(v1.body.errors.map((e: { pointer: string }) => e.pointer)).to.include('/mobile_number');
    const v4 = await payout('v4', { mobileNumber: '966500000001' });
    expectProblem(v4, 400, 'VALIDATION_ERROR');
    expect(v4.body.errors.map((e: { pointer: string }) => e.pointer)).to.include('/mobileNumber');
    // Both name a receiver in their own words: the payout itself is refused for the same reason.
    expectProblem(await payout('v1', { mobileNumber: '966500000001' }), 404, 'CUSTOMER_NOT_FOUND');
    expectProblem(await payout('v4', { mobile_number: '966500000001' }), 404, 'CUSTOMER_NOT_FOUND');
    // A version an older document does not name cannot be set through it.
    const refused = await request('PATCH', `/cl/v1/businesses/${b.id}`, { token: b.token, body: { api_version: 'v4' }, headers: v('v1') });
    expectProblem(refused, 400, 'VALIDATION_ERROR');
  });

  it('never shows a client a version newer than its document names: a business at v4 reads as v3 at v1 to v3', async () => {
    const b = await newBusiness();
    const pinned = await request('PATCH', `/cl/v1/businesses/${b.id}`, { token: b.token, body: { api_version: 'v4' }, headers: v('v4') });
    expect([pinned.status, pinned.body.api_version]).to.deep.equal([200, 'v4']);
    for (const version of ['v1', 'v2', 'v3']) {
      const read = await get(`/cl/v1/businesses/${b.id}`, { token: b.token, headers: v(version) });
      expect([read.headers.get('x-api-version'), read.body.api_version], version).to.deep.equal([version, 'v3']);
      const descriptor = await get('/', { headers: v(version) });
      expect(descriptor.body.endpoints.versioning.supported, version).to.deep.equal(['v1', 'v2', 'v3']);
    }
    expect((await get('/', { headers: v('v4') })).body.endpoints.versioning.supported).to.deep.equal(['v1', 'v2', 'v3', 'v4']);
    // Without the header the business's requests are at v4 now (within the pinned version's cache time).
    await new Promise((r) => setTimeout(r, 5_100));
    const unpinned = await get('/cl/v1/wallets', { token: b.token });
    expect(unpinned.headers.get('x-api-version')).to.equal('v4');
  });

  it('an event stored before the version change is delivered, redelivered and listed in each version\'s shape', async () => {
    const b = await newBusiness();
    const [atV1, atV4] = [await startReceiver(), await startReceiver()];
    try {
      const e1 = await register(b, atV1, 'v1');
      const e4 = await register(b, atV4, 'v4');
      // An event recorded before v4 existed: v3's shape (`completed_at`), as the outbox kept it.
      const old = randomUUID();
      await running().db('outbox_events').insert({
        id: old,
        business_id: b.id,
        code: 'topup.complete',
        data: JSON.stringify({ transaction_id: randomUUID(), business_id: b.id, amount: '5.00', currency: 'SAR', completed_at: '2026-11-21T10:15:30.123Z' }),
        data_version: 'v3',
      });
      const fresh = await topup(b.token, '7.00');
      await atV1.waitFor(2);
      await atV4.waitFor(2);
      // Redelivered, each to its endpoint.
      for (const endpoint of [e1, e4]) {
        const res = await post(`/events/${old}/redeliveries`, { webhook_id: endpoint.id }, { token: b.token });
        expect(res.status).to.equal(202);
      }
      await atV1.waitFor(3);
      await atV4.waitFor(3);
      for (const [receiver, endpoint, version, field] of [
        [atV1, e1, 'v1', 'completed_at'],
        [atV4, e4, 'v4', 'occurred_at'],
      ] as const) {
        const envelopes = receiver.received.map((r) => verifyDelivery(endpoint.secret, r));
        for (const envelope of envelopes) {
          expect(envelope.api_version).to.equal(version);
          expect(Object.keys(envelope.data), `${version} ${envelope.id}`).to.include(field);
          expect(webhookProblem(version, 'topup.complete', envelope), version).to.equal(null);
        }
        expect(envelopes.filter((e) => e.id === old)).to.have.length(2);
        expect(envelopes.filter((e) => e.data.transaction_id === fresh.id)).to.have.length(1);
      }
      // Listed at the request's version: both events in one shape per version.
      for (const [version, field, other] of [
        ['v1', 'completed_at', 'occurred_at'],
        ['v4', 'occurred_at', 'completed_at'],
      ] as const) {
        const listed = await get('/events?code=topup.complete', { token: b.token, headers: v(version) });
        expect(listed.body.data.map((e: { id: string }) => e.id)).to.include(old);
        for (const event of listed.body.data) expect(event.data, version).to.have.property(field).and.not.have.property(other);
        const helper = await get('/testhelpers/outbox-events?code=topup.complete', { token: b.token, headers: v(version) });
        for (const event of helper.body.data) expect(event.data, version).to.have.property(field);
      }
    } finally {
      await atV1.close();
      await atV4.close();
    }
  });

  it('the quickstart\'s wallets and a transfer answer alike at v1 and v4', async () => {
    const b = await newBusiness();
    await topup(b.token, '100.00');
    for (const version of ['v1', 'v4']) {
      const [w1, w2] = [await newWallet(b.token), await newWallet(b.token)];
      await post('/cl/v1/funds', { wallet_id: w1.id, amount: '10.00' }, { token: b.token, headers: v(version) });
      const moved = await post('/cl/v1/transfers', { source_wallet_id: w1.id, destination_wallet_id: w2.id, amount: '4.00' }, { token: b.token, headers: v(version) });
      expect([moved.status, moved.headers.get('x-api-version'), moved.body.amount]).to.deep.equal([201, version, '4.00']);
    }
  });
});
