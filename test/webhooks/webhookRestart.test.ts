/**
 * Webhook delivery across restarts and instances, on a database of its own so
 * that only the instances started here process its jobs: a graceful restart during an
 * attempt loses nothing and records the delivery as succeeded once (the receiver sees
 * the interrupted attempt and the retry under one `webhook-id` and deduplicates by it);
 * a retry due while no instance runs is made after the restart, at its time; two
 * instances on one database deliver each event once.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { RunningService } from '../../src/server.js';
import { post } from '../support/client.js';
import { running, startExtraService } from '../support/service.js';
import { startReceiver, testSecret, verifyDelivery, type Answer, type Receiver, type Received } from '../support/webhooks.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('webhook delivery across restarts and instances', function () {
  this.timeout(120_000);
  const database = `wallet_webhooks_${randomUUID().slice(0, 8)}`;
  const services: RunningService[] = [];
  const receivers: Receiver[] = [];
  const start = async () => {
    const s = await startExtraService({}, database);
    services.push(s);
    return s;
  };
  const receiver = async (answer: (r: Received, i: number) => Answer) => {
    const r = await startReceiver(answer);
    receivers.push(r);
    return r;
  };

  before(() => running().db.raw(`CREATE DATABASE ${database}`));
  after(async () => {
    for (const s of services) await s.close();
    for (const r of receivers) await r.close();
    await running().db.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  /** The demo business of the database registers `hooks` and tops up `count` times. */
  async function registerAndTopup(service: RunningService, hooks: Receiver, count = 1): Promise<string> {
    const baseUrl = service.url;
    const login = await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' }, { baseUrl });
    const token = login.body.access_token;
    const secret = testSecret();
    expect((await post('/cl/v1/webhooks/endpoints', { url: hooks.url, secret, events: ['topup.complete'] }, { token, baseUrl })).status).to.equal(200);
    for (let i = 0; i < count; i++) expect((await post('/cl/v1/testhelpers/topups', { amount: '1.00' }, { token, baseUrl })).status).to.equal(201);
    return secret;
  }

  const deliveryOf = async (service: RunningService, eventId: string) => service.db('webhook_deliveries').where({ event_id: eventId }).first();

  it('a restart during an attempt neither loses the delivery nor records it twice', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const hooks = await receiver((_r, i) => (i === 0 ? { status: 200, after: held } : { status: 200 }));
    const first = await start();
    const secret = await registerAndTopup(first, hooks);
    const [inFlight] = await hooks.waitFor(1);
    const eventId = inFlight!.headers['webhook-id'] as string;

    const stopping = performance.now();
    await first.close();
    expect(performance.now() - stopping, 'shutdown stays within its budget').to.be.below(10_000);
    release();
    const second = await start();
    const received = await hooks.waitFor(2);
    expect(received.map((r) => verifyDelivery(secret, r).id)).to.deep.equal([eventId, eventId]);
    const processed = new Set(received.map((r) => r.headers['webhook-id'])); // the receiver's deduplication
    expect(processed.size).to.equal(1);

    for (let i = 0; (await deliveryOf(second, eventId)).status !== 'SUCCEEDED' && i < 50; i++) await sleep(100);
    expect(await deliveryOf(second, eventId)).to.include({ status: 'SUCCEEDED', attempt_count: 2 });
    const attempts = await second.db('webhook_delivery_attempts').where({ event_id: eventId }).orderBy('attempt');
    expect(attempts.map((a) => a.outcome)).to.deep.equal(['RETRY', 'SUCCEEDED']);
    expect(attempts[0].error).to.match(/interrupted/);
    await sleep(1_500);
    expect(hooks.received, 'nothing more').to.have.length(2);
    await second.close();
  });

  it('a retry that falls due while the service is down is made after the restart', async () => {
    const hooks = await receiver((_r, i) => (i === 0 ? { status: 503, headers: { 'Retry-After': '3' } } : { status: 200 }));
    const first = await start();
    await registerAndTopup(first, hooks);
    const [failed] = await hooks.waitFor(1);
    await first.close();
    await sleep(3_500); // the retry falls due now, with no instance running
    expect(hooks.received).to.have.length(1);
    const second = await start();
    const [, retried] = await hooks.waitFor(2);
    expect(retried!.headers['webhook-id']).to.equal(failed!.headers['webhook-id']);
    expect(retried!.at - failed!.at).to.be.at.least(3_000);
    await second.close();
  });

  it('two instances on one database deliver each event exactly once', async () => {
    const hooks = await receiver(() => ({ status: 200 }));
    const [one, two] = [await start(), await start()];
    await registerAndTopup(one, hooks, 12);
    await hooks.waitFor(12);
    await sleep(1_500);
    const ids = hooks.received.map((r) => r.headers['webhook-id']);
    expect(ids).to.have.length(12);
    expect(new Set(ids).size).to.equal(12);
    // (the demo business's endpoints of the earlier tests receive these events too)
    const endpoint = await two.db('webhook_endpoints').where({ url: hooks.url }).first('id');
    const attempts = await two.db('webhook_delivery_attempts').whereIn('event_id', ids as string[]).where({ endpoint_id: endpoint.id });
    expect(attempts.map((a) => [a.attempt, a.outcome])).to.deep.equal(Array(12).fill([1, 'SUCCEEDED']));
  });
});
