/**
 * Operating webhook endpoints through the API, against real local receivers: read,
 * update (disable, enable), delete; the delivery log (`listWebhookDeliveryAttempts`); the
 * test event; secret rotation (both signatures verified with `standardwebhooks`); recovery
 * after an outage (not sent twice); failing endpoints disabled on the business clock.
 * Every bad request is answered with its documented 4xx and changes nothing.
 */
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { get, post, request } from '../support/client.js';
import { newBusiness, topup, type TestBusiness } from '../support/fixtures.js';
import { expectProblem, expectValidation } from '../support/assertions.js';
import { running } from '../support/service.js';
import { receiversOfSuite, startReceiver, testSecret, verifyDelivery } from '../support/webhooks.js';
import { eventually as pollUntil } from '../support/assertions.js';

const db = () => running().db;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const base = (id: string) => `/cl/v1/webhooks/endpoints/${id}`;
const patch = (id: string, body: unknown, token: string) => request('PATCH', base(id), { token, body });

/** Polls until `check` passes, or throws its last failure after 15_000 ms. */
const eventually = (check: () => Promise<void>, ms = 15_000) => pollUntil(check, ms);

/** Registers `url` for `events`; returns the endpoint id and its secret. */
async function register(b: TestBusiness, url: string, events: string[] = ['topup.complete']): Promise<{ id: string; secret: string }> {
  const secret = testSecret();
  const res = await post('/cl/v1/webhooks/endpoints', { url, secret, events, description: 'Test receiver' }, { token: b.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  const list = await get('/cl/v1/webhooks/endpoints', { token: b.token });
  return { id: list.body.data.find((e: { url: string }) => e.url === url).id, secret };
}

describe('webhook endpoint operations', function () {
  this.timeout(150_000);
  const receiver = receiversOfSuite();

  describe('getWebhookEndpoint, updateWebhookEndpoint, deleteWebhookEndpoint', () => {
    it('reads one endpoint, without its secret; another business gets 404', async () => {
      const b = await newBusiness();
      const hooks = await receiver();
      const endpoint = await register(b, hooks.url);
      const res = await get(base(endpoint.id), { token: b.token });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ id: endpoint.id, url: hooks.url, description: 'Test receiver', status: 'ENABLED', disabled_reason: null, disabled_at: null });
      expect(JSON.stringify(res.body)).to.not.include(endpoint.secret);
      const other = await newBusiness();
      expectProblem(await get(base(endpoint.id), { token: other.token }), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
      expectProblem(await get(base(UNKNOWN), { token: b.token }), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
    });

    it('changes url, events and description; a disabled endpoint gets nothing while its events are recorded; enabling turns it back on', async () => {
      const b = await newBusiness();
      const first = await receiver();
      const second = await receiver();
      const endpoint = await register(b, first.url, ['payout.completed']);
      const changed = await patch(endpoint.id, { url: second.url, events: ['topup.complete'], description: 'Second receiver' }, b.token);
      expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
      expect(changed.body).to.include({ url: second.url, description: 'Second receiver' });
      expect(changed.body.events).to.deep.equal(['topup.complete']);

      const disabled = await patch(endpoint.id, { status: 'DISABLED' }, b.token);
      expect(disabled.body).to.include({ status: 'DISABLED', disabled_reason: 'MANUAL' });
      expect(disabled.body.disabled_at).to.be.a('string');
      await topup(b.token, '10.00');
      await eventually(async () => {
        expect(await db()('outbox_pending').where({ business_id: b.id }), 'the event relayed').to.deep.equal([]);
      });
      await sleep(500);
      expect(await db()('webhook_deliveries').where({ endpoint_id: endpoint.id, business_id: b.id }), 'no delivery made').to.deep.equal([]);
      expect(second.received, 'a disabled endpoint gets no delivery').to.have.length(0);
      const events = await get('/events?code=topup.complete', { token: b.token });
      expect(events.body.data, 'the event is recorded').to.have.length(1);
      expectProblem(await post(`${base(endpoint.id)}/test-events`, {}, { token: b.token }), 409, 'WEBHOOK_ENDPOINT_DISABLED');

      const enabled = await patch(endpoint.id, { status: 'ENABLED' }, b.token);
      expect(enabled.body).to.include({ status: 'ENABLED', disabled_reason: null, disabled_at: null });
      await topup(b.token, '11.00');
      const [delivery] = await second.waitFor(1);
      expect(verifyDelivery(endpoint.secret, delivery!).data.amount).to.equal('11.00');
      expect(first.received).to.have.length(0);
    });

    it('refuses bad updates with their 4xx and changes nothing', async () => {
      const b = await newBusiness();
      const hooks = await receiver();
      const endpoint = await register(b, hooks.url);
      const before = (await get(base(endpoint.id), { token: b.token })).body;
      const refused = await patch(endpoint.id, { url: 'https://10.0.0.7/hooks', description: 'changed' }, b.token);
      expectProblem(refused, 400, 'WEBHOOK_URL_NOT_ALLOWED');
      expect(refused.body.errors[0].pointer).to.equal('/url');
      expectValidation(await patch(endpoint.id, {}, b.token), '/');
      expectValidation(await patch(endpoint.id, { status: 'PAUSED' }, b.token), '/status');
      expectValidation(await patch(endpoint.id, { events: ['wallet.exploded'] }, b.token), '/events/0');
      expectValidation(await patch(endpoint.id, { events: ['webhook.test'] }, b.token), '/events/0');
      expectProblem(await patch(UNKNOWN, { status: 'DISABLED' }, b.token), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
      expect((await get(base(endpoint.id), { token: b.token })).body).to.deep.equal(before);
    });

    it('deletes an endpoint: answered as it was, then gone from every operation', async () => {
      const b = await newBusiness();
      const hooks = await receiver();
      const endpoint = await register(b, hooks.url);
      const deleted = await request('DELETE', base(endpoint.id), { token: b.token });
      expect(deleted.status).to.equal(200);
      expect(deleted.body).to.include({ id: endpoint.id, status: 'DISABLED', disabled_reason: 'DELETED' });
      expectProblem(await get(base(endpoint.id), { token: b.token }), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
      expectProblem(await request('DELETE', base(endpoint.id), { token: b.token }), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
      expect((await get('/cl/v1/webhooks/endpoints', { token: b.token })).body.data).to.deep.equal([]);
      await topup(b.token, '10.00');
      await sleep(1_000);
      expect(hooks.received).to.have.length(0);
    });
  });

  describe('listWebhookDeliveryAttempts', () => {
    it('shows each attempt newest first: status, the first KiB of the body, the error and the next retry; filters and pages', async () => {
      const b = await newBusiness();
      const long = `${'é'.repeat(100)}${'x'.repeat(2_000)}`;
      const hooks = await receiver((_r, i) => (i < 2 ? { status: 500, body: long } : { status: 200, body: '{"ok":true}' }));
      const endpoint = await register(b, hooks.url);
      await topup(b.token, '10.00');
      await hooks.waitFor(3);
      let attempts: any[] = [];
      await eventually(async () => {
        attempts = (await get(`${base(endpoint.id)}/attempts`, { token: b.token })).body.data;
        expect(attempts).to.have.length(3);
      });
      expect(attempts.map((a) => [a.attempt, a.outcome, a.response_status])).to.deep.equal([[3, 'SUCCEEDED', 200], [2, 'FAILED', 500], [1, 'FAILED', 500]]);
      const [ok, , firstFailure] = attempts;
      expect(ok).to.include({ event_code: 'topup.complete', response_body: '{"ok":true}', error: null, next_attempt_at: null });
      expect(firstFailure.error).to.equal('HTTP 500');
      expect(Buffer.byteLength(firstFailure.response_body)).to.equal(1024);
      expect(firstFailure.response_body.startsWith('éé')).to.equal(true);
      expect(Date.parse(firstFailure.next_attempt_at)).to.be.at.least(Date.parse(firstFailure.started_at));
      expect(firstFailure.duration_ms).to.be.a('number');
      const eventId = firstFailure.event_id;

      const failed = await get(`${base(endpoint.id)}/attempts?outcome=FAILED`, { token: b.token });
      expect(failed.body.data.map((a: any) => a.attempt)).to.deep.equal([2, 1]);
      const succeeded = await get(`${base(endpoint.id)}/attempts?outcome=SUCCEEDED&event_id=${eventId}`, { token: b.token });
      expect(succeeded.body.data.map((a: any) => a.attempt)).to.deep.equal([3]);
      expect((await get(`${base(endpoint.id)}/attempts?event_id=${UNKNOWN}`, { token: b.token })).body.data).to.deep.equal([]);
      const future = new Date(Date.now() + 60_000).toISOString();
      expect((await get(`${base(endpoint.id)}/attempts?created_from=${future}`, { token: b.token })).body.data).to.deep.equal([]);

      const page1 = await get(`${base(endpoint.id)}/attempts?limit=2`, { token: b.token });
      expect(page1.body.has_more).to.equal(true);
      const page2 = await get(`${base(endpoint.id)}/attempts?limit=2&cursor=${page1.body.next_cursor}`, { token: b.token });
      expect([...page1.body.data, ...page2.body.data].map((a: any) => a.id)).to.deep.equal(attempts.map((a) => a.id));

      expectProblem(await get(`${base(endpoint.id)}/attempts?cursor=AAAA`, { token: b.token }), 400, 'INVALID_CURSOR');
      expectValidation(await get(`${base(endpoint.id)}/attempts?outcome=RETRY`, { token: b.token }), '/query/outcome');
      expectProblem(await get(`${base(UNKNOWN)}/attempts`, { token: b.token }), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
    });

    it('records why an attempt got no response (connection refused)', async () => {
      const b = await newBusiness();
      const gone = await startReceiver();
      const url = gone.url;
      await gone.close(); // nothing listens on its port any more
      const endpoint = await register(b, url);
      await post(`${base(endpoint.id)}/test-events`, {}, { token: b.token });
      await eventually(async () => {
        const [attempt] = (await get(`${base(endpoint.id)}/attempts?limit=1`, { token: b.token })).body.data;
        expect(attempt).to.include({ event_code: 'webhook.test', outcome: 'FAILED', response_status: null, response_body: null });
        expect(attempt.error).to.match(/ECONNREFUSED/);
      });
    });
  });

  describe('sendWebhookTestEvent', () => {
    it('sends webhook.test to that endpoint alone, signed and recorded; not in listEvents', async () => {
      const b = await newBusiness();
      const hooks = await receiver();
      const other = await receiver();
      const endpoint = await register(b, hooks.url, ['payout.completed']);
      await register(b, other.url, ['topup.complete']);
      const sent = await request('POST', `${base(endpoint.id)}/test-events`, { token: b.token }); // no body at all
      expect(sent.status, JSON.stringify(sent.body)).to.equal(202);
      expect(sent.body).to.include({ webhook_id: endpoint.id, status: 'PENDING' });
      const [delivery] = await hooks.waitFor(1);
      const envelope = verifyDelivery(endpoint.secret, delivery!);
      expect(envelope).to.deep.include({ id: sent.body.event_id, code: 'webhook.test', webhook_id: endpoint.id, data: {} });
      const again = await post(`${base(endpoint.id)}/test-events`, {}, { token: b.token });
      expect(again.status).to.equal(202);
      await hooks.waitFor(2);
      await eventually(async () => {
        const attempts = (await get(`${base(endpoint.id)}/attempts?event_id=${sent.body.event_id}`, { token: b.token })).body.data;
        expect(attempts.map((a: any) => [a.event_code, a.response_status, a.delivery_id])).to.deep.equal([['webhook.test', 200, sent.body.id]]);
      });
      await sleep(500);
      expect(other.received, 'no other endpoint gets it').to.have.length(0);
      expect((await get('/events', { token: b.token })).body.data).to.deep.equal([]);
      expectValidation(await post(`${base(endpoint.id)}/test-events`, { code: 'topup.complete' }, { token: b.token }), '/code');
      expectProblem(await post(`${base(UNKNOWN)}/test-events`, {}, { token: b.token }), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
      expect(hooks.received).to.have.length(2);
    });
  });

  describe('rotateWebhookEndpointSecret', () => {
    it('returns a new secret once; deliveries carry both signatures, each verified with standardwebhooks', async () => {
      const b = await newBusiness();
      const hooks = await receiver();
      const endpoint = await register(b, hooks.url);
      const rotated = await post(`${base(endpoint.id)}/secret-rotations`, { previous_secret_valid_seconds: 3600 }, { token: b.token });
      expect(rotated.status, JSON.stringify(rotated.body)).to.equal(200);
      const { secret, previous_secret_expires_at } = rotated.body;
      expect(secret).to.not.equal(endpoint.secret);
      expect(Date.parse(previous_secret_expires_at) - Date.now()).to.be.within(3_590_000, 3_600_000);
      expect((await get(base(endpoint.id), { token: b.token })).body.previous_secret_expires_at).to.equal(previous_secret_expires_at);

      await topup(b.token, '10.00');
      const [delivery] = await hooks.waitFor(1);
      const signatures = String(delivery!.headers['webhook-signature']).split(' ');
      expect(signatures).to.have.length(2);
      const withOnly = (signature: string) => ({ ...(delivery!.headers as Record<string, string>), 'webhook-signature': signature });
      expect(new Webhook(secret).verify(delivery!.body, withOnly(signatures[0]!))).to.have.property('code', 'topup.complete');
      expect(new Webhook(endpoint.secret).verify(delivery!.body, withOnly(signatures[1]!))).to.have.property('code', 'topup.complete');
      expect(() => new Webhook(endpoint.secret).verify(delivery!.body, withOnly(signatures[0]!))).to.throw();
      // A receiver holding either secret verifies the delivery as sent.
      verifyDelivery(secret, delivery!);
      verifyDelivery(endpoint.secret, delivery!);

      // Refused: changes nothing.
      expectValidation(await post(`${base(endpoint.id)}/secret-rotations`, { previous_secret_valid_seconds: 86_401 }, { token: b.token }), '/previous_secret_valid_seconds');
      expectProblem(await post(`${base(UNKNOWN)}/secret-rotations`, {}, { token: b.token }), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
      await post(`${base(endpoint.id)}/test-events`, {}, { token: b.token });
      const [, test] = await hooks.waitFor(2);
      verifyDelivery(secret, test!);
      verifyDelivery(endpoint.secret, test!);

      // 0: the replaced secret stops at once.
      const now = await post(`${base(endpoint.id)}/secret-rotations`, { previous_secret_valid_seconds: 0 }, { token: b.token });
      expect(now.body.previous_secret_expires_at).to.equal(null);
      await post(`${base(endpoint.id)}/test-events`, {}, { token: b.token });
      const [, , last] = await hooks.waitFor(3);
      expect(String(last!.headers['webhook-signature']).split(' ')).to.have.length(1);
      verifyDelivery(now.body.secret, last!);
      expect(() => verifyDelivery(secret, last!)).to.throw();
    });

    it('keeps the replaced secret 24 hours when the body is empty', async () => {
      const b = await newBusiness();
      const hooks = await receiver();
      const endpoint = await register(b, hooks.url);
      const rotated = await request('POST', `${base(endpoint.id)}/secret-rotations`, { token: b.token });
      expect(rotated.status).to.equal(200);
      expect(Date.parse(rotated.body.previous_secret_expires_at) - Date.now()).to.be.within(86_390_000, 86_400_000);
    });
  });

  describe('recoverWebhookDeliveries', () => {
    it('sends again every delivery that failed since a time, once, however often it is asked', async () => {
      const b = await newBusiness();
      let down = true;
      const hooks = await receiver(() => ({ status: down ? 503 : 200 }));
      const endpoint = await register(b, hooks.url);
      const since = new Date(Date.now() - 1_000).toISOString();
      await topup(b.token, '10.00');
      await topup(b.token, '11.00');
      await eventually(async () => {
        const deliveries = await db()('webhook_deliveries').where({ endpoint_id: endpoint.id, business_id: b.id });
        expect(deliveries.map((d) => d.status)).to.deep.equal(['FAILED', 'FAILED']);
      }, 80_000); // ten attempts each: seconds, more on a loaded machine
      down = false;
      const before = hooks.received.length;

      const [first, second] = await Promise.all([
        post(`${base(endpoint.id)}/recoveries`, { since }, { token: b.token }),
        post(`${base(endpoint.id)}/recoveries`, { since }, { token: b.token }),
      ]);
      expect(first.status, JSON.stringify(first.body)).to.equal(202);
      expect(second.status).to.equal(202);
      expect(first.body.recovered + second.body.recovered, 'each failed delivery recovered once').to.equal(2);
      await hooks.waitFor(before + 2);
      const third = await post(`${base(endpoint.id)}/recoveries`, { since }, { token: b.token });
      expect(third.body).to.deep.equal({ since, recovered: 0 });
      await sleep(1_500);
      const after = hooks.received.slice(before).map((r) => r.headers['webhook-id']);
      expect(after).to.have.length(2);
      expect(new Set(after).size, 'each event once').to.equal(2);
    });

    it('takes over a delivery still failing, and refuses what it cannot do', async () => {
      const b = await newBusiness();
      let down = true;
      const hooks = await receiver(() => (down ? { status: 503, headers: { 'Retry-After': '3600' } } : { status: 200 }));
      const endpoint = await register(b, hooks.url);
      await topup(b.token, '10.00');
      await hooks.waitFor(1);
      await eventually(async () => {
        const [delivery] = await db()('webhook_deliveries').where({ endpoint_id: endpoint.id, business_id: b.id });
        expect(delivery).to.include({ status: 'PENDING', attempt_count: 1 });
      });
      down = false;
      const since = new Date(Date.now() - 60_000).toISOString();
      expectValidation(await post(`${base(endpoint.id)}/recoveries`, { since: 'yesterday' }, { token: b.token }), '/since');
      expectValidation(await post(`${base(endpoint.id)}/recoveries`, {}, { token: b.token }), '/since');
      const recovered = await post(`${base(endpoint.id)}/recoveries`, { since }, { token: b.token });
      expect(recovered.body.recovered).to.equal(1);
      await hooks.waitFor(2);
      await eventually(async () => {
        const deliveries = await db()('webhook_deliveries').where({ endpoint_id: endpoint.id, business_id: b.id }).orderBy('created_at');
        expect(deliveries.map((d) => [d.kind, d.status])).to.deep.equal([['EVENT', 'CANCELLED'], ['RECOVERY', 'SUCCEEDED']]);
      });

      expectProblem(await post(`${base(UNKNOWN)}/recoveries`, { since }, { token: b.token }), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
      await patch(endpoint.id, { status: 'DISABLED' }, b.token);
      expectProblem(await post(`${base(endpoint.id)}/recoveries`, { since }, { token: b.token }), 409, 'WEBHOOK_ENDPOINT_DISABLED');
    });
  });

  describe('failing endpoints', () => {
    it('are disabled once every attempt failed for 5 days of the business clock (reason FAILING); an update enables them again', async () => {
      const b = await newBusiness();
      const hooks = await receiver(() => ({ status: 500 }));
      const endpoint = await register(b, hooks.url);
      await post(`${base(endpoint.id)}/test-events`, {}, { token: b.token });
      await hooks.waitFor(3);
      expect((await get(base(endpoint.id), { token: b.token })).body.status, 'failing for less than 5 days').to.equal('ENABLED');
      const clock = await post('/testhelpers/clock', { advance_seconds: 5 * 86_400 + 60 }, { token: b.token });
      expect(clock.status).to.equal(200);
      await post(`${base(endpoint.id)}/test-events`, {}, { token: b.token });
      await eventually(async () => {
        const res = await get(base(endpoint.id), { token: b.token });
        expect(res.body).to.include({ status: 'DISABLED', disabled_reason: 'FAILING' });
        expect(res.body.disabled_at).to.be.a('string');
      });
      const enabled = await patch(endpoint.id, { status: 'ENABLED' }, b.token);
      expect(enabled.body).to.include({ status: 'ENABLED', disabled_reason: null });
      const [row] = await db()('webhook_endpoints').where({ id: endpoint.id, business_id: b.id });
      expect(row.failing_since, 'the failing streak starts over').to.equal(null);
    });

    it('stay enabled when an attempt succeeds in between', async () => {
      const b = await newBusiness();
      let ok = false;
      const hooks = await receiver(() => ({ status: ok ? 200 : 500 }));
      const endpoint = await register(b, hooks.url);
      await post(`${base(endpoint.id)}/test-events`, {}, { token: b.token });
      await hooks.waitFor(2);
      ok = true;
      await eventually(async () => {
        const [row] = await db()('webhook_endpoints').where({ id: endpoint.id, business_id: b.id });
        expect(row.failing_since).to.equal(null);
      });
      ok = false;
      await post('/testhelpers/clock', { advance_seconds: 5 * 86_400 + 60 }, { token: b.token });
      const count = hooks.received.length;
      await post(`${base(endpoint.id)}/test-events`, {}, { token: b.token });
      await hooks.waitFor(count + 2);
      await sleep(300);
      expect((await get(base(endpoint.id), { token: b.token })).body.status).to.equal('ENABLED');
    });
  });
});
