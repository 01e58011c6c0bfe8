/**
 * Webhook endpoint secrets at rest: sealed with the data keys (src/webhooks/secrets.ts),
 * never in clear in the database, still signing deliveries that an integrator verifies
 * with the secret (Standard Webhooks), across a rotation of the data key (a secret sealed
 * under the old version signs on an instance whose current key is new; the next start
 * re-seals it under the new version), and a row stored in clear before sealing is sealed
 * at start-up. On a database of its own, so that a rotated key never reaches the main
 * service's endpoints.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { RunningService } from '../../src/server.js';
import { get, post } from '../support/client.js';
import { running, startExtraService, testConfig } from '../support/service.js';
import { startReceiver, testSecret, verifyDelivery, type Receiver } from '../support/webhooks.js';

const ROTATED = { cardDataKey: 'rotated-card-data-key-rotated-card-data-key', cardDataKeyVersion: 2, cardDataPreviousKeys: { 1: testConfig().cardDataKey! } };

describe('webhook endpoint secrets sealed at rest', function () {
  this.timeout(120_000);
  const database = `wallet_secrets_${randomUUID().slice(0, 8)}`;
  const services: RunningService[] = [];
  const receivers: Receiver[] = [];

  before(() => running().db.raw(`CREATE DATABASE ${database}`));
  after(async () => {
    for (const s of services) await s.close().catch(() => undefined);
    for (const r of receivers) await r.close();
    await running().db.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  async function start(overrides = {}): Promise<RunningService> {
    const s = await startExtraService(overrides, database);
    services.push(s);
    return s;
  }
  async function stop(s: RunningService): Promise<void> {
    services.splice(services.indexOf(s), 1);
    await s.close();
  }
  const tokenOf = async (s: RunningService) =>
    (await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' }, { baseUrl: s.url })).body
      .access_token as string;
  const rowOf = (s: RunningService, url: string) => s.db('webhook_endpoints').where({ url }).first('id', 'secret', 'secret_sealed', 'secret_key_version');

  /** Tops up the demo business through `s` and returns the topup.complete deliveries `receiver` got for it, verified with `secret`. */
  async function deliveredTopup(s: RunningService, token: string, receiver: Receiver, secret: string): Promise<any> {
    const before = receiver.received.length;
    const topup = await post('/cl/v1/testhelpers/topups', { amount: '10.00' }, { token, baseUrl: s.url });
    expect(topup.status, JSON.stringify(topup.body)).to.equal(201);
    const received = await receiver.waitFor(before + 1);
    const envelope = verifyDelivery(secret, received[before]); // throws unless signed with `secret`
    expect(envelope.data.transaction_id).to.equal(topup.body.id);
    return envelope;
  }

  it('stores no clear secret, signs with it, keeps signing across a key rotation and re-seals at the next start', async () => {
    const first = await start();
    const rotated = await start(ROTATED); // a rolling rotation: both versions run at once
    const token = await tokenOf(first);
    const hooks = await startReceiver();
    receivers.push(hooks);
    const secret = testSecret();
    const registered = await post('/cl/v1/webhooks/endpoints', { url: hooks.url, secret, events: ['topup.complete'] }, { token, baseUrl: first.url });
    expect(registered.status, JSON.stringify(registered.body)).to.equal(200);

    // At rest: sealed under version 1, nothing of the secret in clear.
    const sealed = await rowOf(first, hooks.url);
    expect(sealed.secret).to.equal(null);
    expect(sealed.secret_key_version).to.equal(1);
    const key = secret.slice('whsec_'.length);
    for (const part of [secret, key, Buffer.from(key, 'base64').toString('hex'), Buffer.from(key, 'base64').toString('base64url')]) {
      expect(sealed.secret_sealed).not.to.include(part);
    }
    // The listing never shows it either.
    const list = await get('/cl/v1/webhooks/endpoints', { token, baseUrl: first.url });
    expect(JSON.stringify(list.body)).not.to.include(key);

    // Only the instance whose current key is version 2 runs now: the version-1 secret still signs.
    await stop(first);
    await deliveredTopup(rotated, token, hooks, secret);
    expect((await rowOf(rotated, hooks.url)).secret_key_version).to.equal(1);

    // A row stored in clear (as before sealing) is sealed at the next start, with the rotated one re-sealed.
    const legacy = await startReceiver();
    receivers.push(legacy);
    const legacySecret = testSecret();
    const business = await rotated.db('businesses').where({ name: 'Demo Business' }).first('id');
    await rotated.db('webhook_endpoints').insert({
      id: randomUUID(),
      business_id: business.id,
      url: legacy.url,
      secret: legacySecret,
      events: JSON.stringify(['topup.complete']),
      status: 'ENABLED',
    });
    await stop(rotated);
    const next = await start(ROTATED);
    for (const url of [hooks.url, legacy.url]) {
      const row = await rowOf(next, url);
      expect(row.secret, url).to.equal(null);
      expect(row.secret_key_version, url).to.equal(2);
      expect(row.secret_sealed).not.to.include(legacySecret.slice('whsec_'.length));
    }
    const before = legacy.received.length;
    await deliveredTopup(next, token, hooks, secret);
    await legacy.waitFor(before + 1);
    verifyDelivery(legacySecret, legacy.received[before]);

    // Without the old key configured, a secret still sealed under it cannot sign: the attempt
    // fails and is recorded, nothing unsigned is sent.
    await next.db('webhook_endpoints').where({ url: hooks.url }).update({ secret_key_version: 7 });
    const topup = await post('/cl/v1/testhelpers/topups', { amount: '1.00' }, { token, baseUrl: next.url });
    const received = hooks.received.length;
    const deadline = Date.now() + 10_000;
    let attempt: { error: string } | undefined;
    while (!attempt && Date.now() < deadline) {
      attempt = await next
        .db('webhook_delivery_attempts as a')
        .join('outbox_events as e', 'e.id', 'a.event_id')
        .join('webhook_endpoints as w', 'w.id', 'a.endpoint_id')
        .where({ 'w.url': hooks.url })
        .whereRaw("e.data->>'transaction_id' = ?", [topup.body.id])
        .first('a.error');
      if (!attempt) await new Promise((r) => setTimeout(r, 100));
    }
    expect(attempt?.error).to.equal('the endpoint secret cannot be used for signing');
    expect(hooks.received.length).to.equal(received);
  });
});
