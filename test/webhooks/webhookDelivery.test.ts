/**
 * Webhook delivery to real local HTTP receivers: every delivery is verified
 * with the npm package `standardwebhooks` and its bearer JWT with `jose`; failures are
 * retried on the (test-scaled) schedule, `Retry-After` is honoured, a 410 disables the
 * endpoint, and every attempt is recorded. The whole schedule runs in seconds because
 * the tests' services use WEBHOOK_RETRY_SCALE 0.00001 (test/support/service.ts).
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { jwtVerify } from 'jose';
import { get, post } from '../support/client.js';
import { activeCustomer } from '../support/customers.js';
import { newBusiness, topup, type TestBusiness } from '../support/fixtures.js';
import { sendAttempt } from '../../src/webhooks/sender.js';
import { running } from '../support/service.js';
import { receiversOfSuite, testSecret, verifyDelivery, type Receiver } from '../support/webhooks.js';
import { eventually as pollUntil } from '../support/assertions.js';

const db = () => running().db;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Registers `receiver` for `events`; returns the endpoint id and its secret. */
async function register(b: TestBusiness, receiver: Receiver, events: string[]): Promise<{ id: string; secret: string }> {
  const secret = testSecret();
  const res = await post('/cl/v1/webhooks/endpoints', { url: receiver.url, secret, events }, { token: b.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  const list = await get('/cl/v1/webhooks/endpoints', { token: b.token });
  return { id: list.body.data.find((e: { url: string }) => e.url === receiver.url).id, secret };
}

/** The attempts recorded for the deliveries of `eventId`, oldest first. */
const attemptsOf = (businessId: string, eventId: string) => db()('webhook_delivery_attempts').where({ event_id: eventId, business_id: businessId }).orderBy([{ column: 'created_at' }, { column: 'attempt' }]);

/** Polls until `check` passes, or throws its last failure after 10_000 ms. */
const eventually = (check: () => Promise<void>, ms = 10_000) => pollUntil(check, ms);

describe('webhook delivery', function () {
  this.timeout(60_000);
  const receiver = receiversOfSuite();

  it('delivers topup.complete in the seed envelope, signed per Standard Webhooks, with a bearer JWT, to subscribed endpoints only', async () => {
    const b = await newBusiness();
    const hooks = await receiver();
    const other = await receiver();
    const endpoint = await register(b, hooks, ['topup.complete']);
    await register(b, other, ['onboarding.complete']);
    const transaction = await topup(b.token, '125.50');

    const [delivery] = await hooks.waitFor(1);
    const envelope = verifyDelivery(endpoint.secret, delivery!);
    expect(Object.keys(envelope).sort()).to.deep.equal(['api_version', 'code', 'created_at', 'data', 'id', 'webhook_id']);
    const [event] = (await get('/testhelpers/outbox-events?code=topup.complete', { token: b.token })).body.data;
    expect(envelope).to.deep.equal({ id: event.id, code: 'topup.complete', created_at: event.created_at, webhook_id: endpoint.id, api_version: 'v1', data: event.data });
    expect(envelope.data).to.include({ transaction_id: transaction.id, business_id: b.id, amount: '125.50', currency: 'SAR' });
    expect(delivery!.headers['webhook-id']).to.equal(event.id);
    expect(delivery!.headers['content-type']).to.equal('application/json');

    const bearer = String(delivery!.headers.authorization).replace(/^Bearer /, '');
    const key = Buffer.from(endpoint.secret.slice('whsec_'.length), 'base64');
    const { payload } = await jwtVerify(bearer, key, { issuer: 'wallet-service', audience: hooks.url, subject: b.id, algorithms: ['HS256'] });
    expect(payload.jti).to.equal(event.id);
    expect(payload.body_sha256).to.equal(createHash('sha256').update(delivery!.body).digest('base64url'));
    expect(payload.exp! - payload.iat!).to.equal(300);

    await eventually(async () => {
      const [attempt] = await attemptsOf(b.id, event.id);
      expect(attempt).to.include({ business_id: b.id, endpoint_id: endpoint.id, attempt: 1, outcome: 'SUCCEEDED', status_code: 200, error: null });
      expect(attempt.latency_ms).to.be.a('number').and.at.least(0);
      const deliveries = await db()('webhook_deliveries').where({ event_id: event.id, business_id: b.id });
      expect(deliveries.map((d) => [d.status, d.attempt_count])).to.deep.equal([['SUCCEEDED', 1]]);
    });
    await sleep(700);
    expect(other.received, 'an endpoint not subscribed to the code gets nothing').to.have.length(0);
    expect(hooks.received, 'delivered once').to.have.length(1);
  });

  it('delivers to an endpoint the events made since it was registered, not an older event the relay reaches after it', async () => {
    const b = await newBusiness();
    const hooks = await receiver();
    // Hold the business's pending events (the relay skips locked rows) while the endpoint is registered.
    let older: string | undefined;
    const trx = await db().transaction();
    try {
      for (let tries = 0; !older && tries < 20; tries++) {
        const made = await topup(b.token, '1.00');
        const [held] = await trx('outbox_pending').where({ business_id: b.id }).forUpdate().select('event_id');
        if (held) older = held.event_id;
        else expect(made.id).to.be.a('string');
      }
      expect(older, 'a pending event held').to.be.a('string');
      await sleep(20);
      await register(b, hooks, ['topup.complete']);
    } finally {
      await trx.commit();
    }
    const newer = await topup(b.token, '2.00');
    const [delivery] = await hooks.waitFor(1);
    expect(JSON.parse(delivery!.body).data.transaction_id).to.equal(newer.id);
    await eventually(async () => {
      expect(await db()('outbox_pending').where({ business_id: b.id })).to.deep.equal([]);
    });
    await sleep(300);
    expect(hooks.received.map((r) => JSON.parse(r.body).id)).to.not.include(older);
    expect(hooks.received).to.have.length(1);
  });

  it('delivers onboarding.complete with the seed data', async () => {
    const b = await newBusiness();
    const hooks = await receiver();
    const endpoint = await register(b, hooks, ['onboarding.complete']);
    const customer = await activeCustomer(b);
    const [delivery] = await hooks.waitFor(1);
    const envelope = verifyDelivery(endpoint.secret, delivery!);
    expect(envelope.code).to.equal('onboarding.complete');
    expect(envelope.webhook_id).to.equal(endpoint.id);
    expect(envelope.data).to.include({ customer_id: customer.id, status: 'active' });
    expect(Object.keys(envelope.data).sort()).to.deep.equal(['completed_at', 'customer_id', 'external_reference', 'mobile_number', 'status']);
  });

  it('retries a 500 with the same webhook-id until the receiver accepts, recording every attempt', async () => {
    const b = await newBusiness();
    const hooks = await receiver((_r, i) => ({ status: i < 2 ? 500 : 200 }));
    const endpoint = await register(b, hooks, ['topup.complete']);
    await topup(b.token, '10.00');
    const deliveries = await hooks.waitFor(3);
    const ids = deliveries.map((d) => verifyDelivery(endpoint.secret, d).id);
    expect(new Set(ids).size, 'one event, sent three times').to.equal(1);
    expect(new Set(deliveries.map((d) => d.headers['webhook-id']))).to.deep.equal(new Set(ids));
    await eventually(async () => {
      const attempts = await attemptsOf(b.id, ids[0]);
      expect(attempts.map((a) => [a.attempt, a.status_code, a.outcome])).to.deep.equal([[1, 500, 'RETRY'], [2, 500, 'RETRY'], [3, 200, 'SUCCEEDED']]);
      expect(attempts[0].error).to.equal('HTTP 500');
    });
    await sleep(700);
    expect(hooks.received).to.have.length(3);
  });

  it("honours the receiver's Retry-After", async () => {
    const b = await newBusiness();
    const hooks = await receiver((_r, i) => (i === 0 ? { status: 503, headers: { 'Retry-After': '2' } } : { status: 200 }));
    await register(b, hooks, ['topup.complete']);
    await topup(b.token, '10.00');
    const [first, second] = await hooks.waitFor(2);
    expect(second!.at - first!.at, 'the schedule alone would retry within milliseconds').to.be.at.least(1_900);
  });

  it('gives up after the tenth failed attempt (FAILED)', async () => {
    const b = await newBusiness();
    const hooks = await receiver(() => ({ status: 500 }));
    await register(b, hooks, ['topup.complete']);
    await topup(b.token, '10.00');
    const deliveries = await hooks.waitFor(10, 40_000);
    const eventId = deliveries[0]!.headers['webhook-id'] as string;
    await eventually(async () => {
      const [delivery] = await db()('webhook_deliveries').where({ event_id: eventId, business_id: b.id });
      expect(delivery).to.include({ status: 'FAILED', attempt_count: 10, last_status_code: 500 });
      expect((await attemptsOf(b.id, eventId)).map((a) => a.outcome)).to.deep.equal([...Array(9).fill('RETRY'), 'FAILED']);
    });
    await sleep(1_500);
    expect(hooks.received).to.have.length(10);
  });

  it('treats an answer slower than the time-out as a failed attempt', async () => {
    const b = await newBusiness();
    const hooks = await receiver((_r, i) => (i === 0 ? { status: 200, after: sleep(3_000) } : { status: 200 }));
    await register(b, hooks, ['topup.complete']);
    await topup(b.token, '10.00');
    const [first] = await hooks.waitFor(2);
    await eventually(async () => {
      const attempts = await attemptsOf(b.id, first!.headers['webhook-id'] as string);
      expect(attempts.map((a) => [a.outcome, a.status_code])).to.deep.equal([['RETRY', null], ['SUCCEEDED', 200]]);
      expect(attempts[0].error).to.match(/timed out after 2000 ms/);
      expect(attempts[0].latency_ms).to.be.at.least(1_900);
    });
  });

  it('disables an endpoint that answers 410 Gone, and delivers nothing more to it', async () => {
    const b = await newBusiness();
    const hooks = await receiver(() => ({ status: 410 }));
    const endpoint = await register(b, hooks, ['topup.complete']);
    await topup(b.token, '10.00');
    const [gone] = await hooks.waitFor(1);
    await eventually(async () => {
      const [item] = (await get('/cl/v1/webhooks/endpoints', { token: b.token })).body.data;
      expect(item).to.include({ id: endpoint.id, status: 'DISABLED', disabled_reason: 'GONE' });
    });
    const attempts = await attemptsOf(b.id, gone!.headers['webhook-id'] as string);
    expect(attempts.map((a) => [a.outcome, a.status_code])).to.deep.equal([['ENDPOINT_GONE', 410]]);
    await topup(b.token, '10.00');
    await sleep(1_500);
    expect(hooks.received, 'no retry, no later event').to.have.length(1);
  });

  it('sends an endpoint that pushes back fewer attempts at once (adaptive concurrency per endpoint) and still delivers every event', async () => {
    const b = await newBusiness();
    const EVENTS = 150;
    const CAPACITY = 3;
    // The receiver takes CAPACITY requests at a time (40 ms each) and answers 429 beyond.
    let inFlight = 0;
    const arrivals: { concurrent: number; refused: boolean }[] = [];
    const accepted = new Set<string>();
    const hooks = await receiver((r) => {
      inFlight++;
      const refused = inFlight > CAPACITY;
      arrivals.push({ concurrent: inFlight, refused });
      if (refused) {
        inFlight--;
        return { status: 429 };
      }
      accepted.add(r.json.id);
      return { status: 200, after: sleep(40).then(() => void inFlight--) };
    });
    await register(b, hooks, ['topup.complete']);
    await Promise.all(Array.from({ length: EVENTS }, () => topup(b.token, '1.00')));
    await eventually(async () => {
      expect(accepted.size).to.equal(EVENTS);
    }, 45_000);

    const refused = arrivals.filter((a) => a.refused).length;
    const late = arrivals.slice(Math.floor(arrivals.length / 2));
    const peakLate = Math.max(...late.map((a) => a.concurrent));
    console.log(`      ${arrivals.length} requests for ${EVENTS} events, ${refused} answered 429; at most ${peakLate} at once over the second half`);
    // Without the limit, every fetch's attempts (up to 64 per worker) go at once: most are refused.
    expect(refused, 'requests refused with 429').to.be.below(EVENTS / 2);
    expect(peakLate, 'requests at once once the limit has adapted').to.be.at.most(2 * CAPACITY);
  });

  it('checks the URL again at delivery, on the address connected to: production never calls loopback', async () => {
    const hooks = await receiver();
    const port = new URL(hooks.url).port;
    const shutdown = new AbortController().signal;
    const production = { sandbox: false };
    for (const url of [hooks.url, `https://127.0.0.1:${port}/hooks`, `https://localhost:${port}/hooks`]) {
      const result = await sendAttempt(production, url, {}, '{}', { timeoutMs: 2_000, shutdown });
      expect(result.statusCode, url).to.equal(null);
      expect(result.error, url).to.match(/^URL not allowed/);
    }
    expect(hooks.received, 'no request reached the receiver').to.have.length(0);
    expect((await sendAttempt({ sandbox: true }, `http://localhost:${port}/hooks`, {}, '{}', { timeoutMs: 2_000, shutdown })).statusCode).to.equal(200);
  });
});
