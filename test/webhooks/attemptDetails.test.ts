/**
 * The delivery log's details and filters (`listWebhookDeliveryAttempts`), from outside: each
 * attempt shows the request as the receiver got it (its headers, the bearer token left out,
 * and its body) and the response's headers (cookies left out, at most 32, each value bounded);
 * the log filters by event code and by payout; a resend (`redeliverEvent`) is marked MANUAL and
 * numbered after the event's automatic attempts.
 */
import { expect } from 'chai';
import { get, post } from '../support/client.js';
import { eventually, expectValidation } from '../support/assertions.js';
import { createPayout, payoutBusiness } from '../support/payouts.js';
import { receiversOfSuite, testSecret, type Answer } from '../support/webhooks.js';

const attemptsOf = (endpointId: string) => `/cl/v1/webhooks/endpoints/${endpointId}/attempts`;

describe('webhook delivery attempts: request and response details, filters, manual resends', function () {
  this.timeout(120_000);
  const receiver = receiversOfSuite();

  it('shows the request as received and the response headers; filters by event code and payout; numbers a resend after the automatic attempts', async () => {
    const { b, customer } = await payoutBusiness();
    // The first attempt of each event fails, every later one succeeds.
    const tries = new Map<string, number>();
    const hooks = await receiver((r): Answer => {
      const id = String(r.headers['webhook-id']);
      tries.set(id, (tries.get(id) ?? 0) + 1);
      return tries.get(id) === 1
        ? { status: 503, body: 'busy', headers: { 'x-request-id': 'req-1', 'set-cookie': 'session=abc' } }
        : { status: 200, body: '{"ok":true}', headers: { 'x-request-id': 'req-2' } };
    });
    const made = await post('/cl/v1/webhooks/endpoints', { url: hooks.url, secret: testSecret(), events: ['topup.complete', 'payout.pending', 'payout.processing'] }, { token: b.token });
    expect(made.status, JSON.stringify(made.body)).to.equal(200);
    const endpointId = (await get('/cl/v1/webhooks/endpoints', { token: b.token })).body.data[0].id;
    const first = await createPayout(b, { payout_amount: '3.10', customer_id: customer.id });
    const second = await createPayout(b, { payout_amount: '4.20', customer_id: customer.id });

    // The first payout's events: each failed once, then succeeded.
    let mine: any[] = [];
    await eventually(async () => {
      const res = await get(`${attemptsOf(endpointId)}?payout_id=${first.payout_id}`, { token: b.token });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      mine = res.body.data;
      expect(mine.filter((a) => a.outcome === 'SUCCEEDED').map((a) => a.event_code).sort()).to.deep.equal(['payout.pending', 'payout.processing']);
    }, 60_000);
    const events = new Set(mine.map((a) => a.event_id));
    const received = hooks.received.filter((r) => events.has(String(r.headers['webhook-id'])));
    expect(mine, 'every attempt of the payout, and only its').to.have.length(received.length);

    const failed = mine.find((a) => a.event_code === 'payout.pending' && a.outcome === 'FAILED');
    const ok = mine.find((a) => a.event_code === 'payout.pending' && a.outcome === 'SUCCEEDED');
    expect([failed.number, failed.trigger, ok.number, ok.trigger]).to.deep.equal([1, 'AUTOMATIC', 2, 'AUTOMATIC']);
    // The request as the receiver got it, the bearer token left out.
    const got = received.find((r) => r.headers['webhook-id'] === failed.event_id && r.headers['webhook-timestamp'] === failed.request_headers['webhook-timestamp'])!;
    expect(got, 'the receiver got the request the log shows').to.not.equal(undefined);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type', 'user-agent', 'content-length']) {
      expect(failed.request_headers[name], name).to.equal(got.headers[name]);
    }
    expect(failed.request_headers.authorization).to.equal('Bearer (not kept)');
    expect(failed.request_body).to.equal(got.body);
    expect(JSON.parse(failed.request_body).data.payout_id).to.equal(first.payout_id);
    // The response's headers, its cookie left out.
    expect(failed.response_headers).to.include({ 'x-request-id': 'req-1', 'set-cookie': '(not kept)' });
    expect(ok.response_headers).to.include({ 'x-request-id': 'req-2' });

    // By event code: only that code's attempts, of both payouts.
    let pending: any[] = [];
    await eventually(async () => {
      pending = (await get(`${attemptsOf(endpointId)}?event_code=payout.pending&outcome=SUCCEEDED`, { token: b.token })).body.data;
      expect(pending).to.have.length(2);
    }, 30_000);
    expect(pending.map((a: any) => JSON.parse(a.request_body).data.payout_id).sort()).to.deep.equal([first.payout_id, second.payout_id].sort());
    expect((await get(`${attemptsOf(endpointId)}?event_code=onboarding.complete`, { token: b.token })).body.data).to.deep.equal([]);
    expect((await get(`${attemptsOf(endpointId)}?payout_id=00000000-0000-4000-8000-000000000000`, { token: b.token })).body.data).to.deep.equal([]);
    expectValidation(await get(`${attemptsOf(endpointId)}?payout_id=12`, { token: b.token }), '/query/payout_id');
    expectValidation(await get(`${attemptsOf(endpointId)}?event_code=PAYOUT`, { token: b.token }), '/query/event_code');

    // A resend: MANUAL, numbered after the two automatic attempts.
    const resent = await post(`/events/${ok.event_id}/redeliveries`, { webhook_id: endpointId }, { token: b.token });
    expect(resent.status, JSON.stringify(resent.body)).to.be.oneOf([200, 201, 202]);
    await eventually(async () => {
      const log = (await get(`${attemptsOf(endpointId)}?event_id=${ok.event_id}`, { token: b.token })).body.data;
      expect(log.map((a: any) => [a.number, a.trigger, a.attempt, a.outcome])).to.deep.equal([
        [3, 'MANUAL', 1, 'SUCCEEDED'],
        [2, 'AUTOMATIC', 2, 'SUCCEEDED'],
        [1, 'AUTOMATIC', 1, 'FAILED'],
      ]);
    }, 30_000);
  });

  it('keeps at most 32 response headers, each value its first 256 characters', async () => {
    const { b } = await payoutBusiness('1.00');
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`x-h${String(i).padStart(2, '0')}`, 'v'.repeat(300)]));
    const hooks = await receiver((): Answer => ({ status: 200, headers: many }));
    const made = await post('/cl/v1/webhooks/endpoints', { url: hooks.url, secret: testSecret(), events: ['topup.complete'] }, { token: b.token });
    expect(made.status, JSON.stringify(made.body)).to.equal(200);
    const endpointId = (await get('/cl/v1/webhooks/endpoints', { token: b.token })).body.data[0].id;
    const sent = await post(`/cl/v1/webhooks/endpoints/${endpointId}/test-events`, {}, { token: b.token });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(202);
    await eventually(async () => {
      const [attempt] = (await get(`${attemptsOf(endpointId)}?event_code=webhook.test`, { token: b.token })).body.data;
      expect(attempt).to.include({ outcome: 'SUCCEEDED', trigger: 'MANUAL', number: 1 });
      const kept = Object.entries(attempt.response_headers as Record<string, string>);
      expect(kept).to.have.length(32);
      expect(kept[0]).to.deep.equal(['x-h00', 'v'.repeat(256)]);
    }, 30_000);
  });
});
