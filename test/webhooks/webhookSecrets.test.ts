/**
 * Webhook endpoint secrets at rest: sealed under the webhook secret keys
 * (src/webhooks/secrets.ts), never in clear in the database, still signing deliveries that
 * an integrator verifies with the secret (Standard Webhooks), across a rotation of the key
 * (a secret sealed under the old version signs on an instance whose current key is new; the
 * next start re-seals it under the new version), and from before webhook secrets had keys
 * of their own (sealed under the card data keys: the start re-seals it). A database still holding a secret in clear (stored
 * before sealing) is refused by the migration that drops the clear column, changing
 * nothing. On databases of their own, so that a rotated key never reaches the main
 * service's endpoints.
 */
import { createCipheriv, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import knex from 'knex';
import { connectAndMigrate } from '../../src/db/knex.js';
import type { RunningService } from '../../src/server.js';
import { get, post } from '../support/client.js';
import { ownDatabaseServices, running, testConfig } from '../support/service.js';
import { startReceiver, testSecret, verifyDelivery, type Receiver } from '../support/webhooks.js';

const ROTATED = { webhookSecretKey: 'rotated-webhook-secret-key-rotated-webhook-secret-key', webhookSecretKeyVersion: 2, webhookSecretPreviousKeys: { 1: testConfig().webhookSecretKey! } };

describe('webhook endpoint secrets sealed at rest', function () {
  this.timeout(120_000);
  const { start, stop } = ownDatabaseServices('wallet_secrets');
  const receivers: Receiver[] = [];
  after(async () => {
    for (const r of receivers) await r.close();
  });
  const tokenOf = async (s: RunningService) =>
    (await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' }, { baseUrl: s.url })).body
      .access_token as string;
  const rowOf = (s: RunningService, url: string) => s.db('webhook_endpoints').where({ url }).first('id', 'secret_sealed', 'secret_key_version');

  /** A receiver registered as an endpoint of the demo business through `s`, with a new secret. */
  async function registered(s: RunningService, token: string): Promise<{ hooks: Receiver; secret: string }> {
    const hooks = await startReceiver();
    receivers.push(hooks);
    const secret = testSecret();
    const res = await post('/cl/v1/webhooks/endpoints', { url: hooks.url, secret, events: ['topup.complete'] }, { token, baseUrl: s.url });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return { hooks, secret };
  }

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
    const { hooks, secret } = await registered(first, token);

    // At rest: sealed under version 1, nothing of the secret in clear.
    const sealed = await rowOf(first, hooks.url);
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

    // The next start re-seals the rotated one under version 2, and it still signs.
    await stop(rotated);
    const next = await start(ROTATED);
    const row = await rowOf(next, hooks.url);
    expect(row.secret_key_version).to.equal(2);
    expect(row.secret_sealed).not.to.equal(sealed.secret_sealed);
    await deliveredTopup(next, token, hooks, secret);

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

  it('opens a secret sealed under the card data keys, before webhook secrets had keys of their own, and re-seals it under the webhook secret key at start', async () => {
    const first = await start();
    const token = await tokenOf(first);
    const { hooks, secret } = await registered(first, token);
    const { id } = await rowOf(first, hooks.url);
    // The secret as a release before key families left it: sealed under card data key version 3,
    // AES-256-GCM under HMAC-SHA256(CARD_DATA_KEY, "webhook-secret-seal"), `<iv>.<tag>.<ciphertext>`.
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', createHmac('sha256', testConfig().cardDataKey!).update('webhook-secret-seal').digest(), iv);
    cipher.setAAD(Buffer.from(`webhook-endpoint:${id}:secret`));
    const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    const legacy = [iv, cipher.getAuthTag(), data].map((p) => p.toString('base64url')).join('.');
    await first.db('webhook_endpoints').where({ id }).update({ secret_sealed: legacy, secret_key_version: 3 });
    await stop(first);

    // That card data key is now version 3 of its family; the webhook secret key is still version 1.
    const next = await start({ cardDataKeyVersion: 3 });
    const row = await rowOf(next, hooks.url);
    expect(row.secret_key_version).to.equal(1);
    expect(row.secret_sealed).to.match(/^webhook-secret\./);
    await deliveredTopup(next, token, hooks, secret);
  });

  it('a database holding a secret in clear is refused by the migration that drops the clear column, changing nothing', async () => {
    const name = `wallet_clear_${randomUUID().slice(0, 8)}`;
    await running().db.raw(`CREATE DATABASE ${name}`);
    const url = running().databaseUrl.replace(/\/[^/]*$/, `/${name}`);
    const db = knex({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
    try {
      // The schema as the release before this one left it, with a secret stored in clear.
      const migrated = await connectAndMigrate(url, { poolSize: 2 });
      // Undone one at a time, newest first, down to the migration that dropped the column.
      while (await migrated('knex_migrations').where({ name: '033_webhook_secrets_sealed_only' }).first()) await migrated.migrate.down();
      await migrated.destroy();
      const business = { id: randomUUID() };
      await db('businesses').insert({ id: business.id, name: 'Clear', currency: 'SAR' });
      await db('webhook_endpoints').insert({ id: randomUUID(), business_id: business.id, url: 'https://example.com/hooks', secret: testSecret(), events: JSON.stringify(['topup.complete']), status: 'ENABLED' });
      const refusal = await connectAndMigrate(url, { poolSize: 2 }).then((m) => m.destroy().then(() => null), (err: unknown) => err);
      expect(String(refusal)).to.match(/1 webhook endpoint secret\(s\) are still stored in clear: start the previous release once/);
      expect(await db('webhook_endpoints').whereNotNull('secret').count<{ n: string }[]>({ n: '*' })).to.deep.equal([{ n: '1' }]);
      expect(await db('knex_migrations').where({ name: '033_webhook_secrets_sealed_only' }).first()).to.equal(undefined);
    } finally {
      await db.destroy();
      await running().db.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  });
});
