/**
 * listEvents and redeliverEvent: the business's events, newest first, filtered
 * by code, by the object they are about and by creation time; one event sent again to one endpoint, with each documented
 * refusal.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { expectProblem } from '../support/assertions.js';
import { get, post } from '../support/client.js';
import { newBusiness, topup, type TestBusiness } from '../support/fixtures.js';
import { activeCustomer } from '../support/customers.js';
import { createPayout, topupPayoutAccount } from '../support/payouts.js';
import { startReceiver, testSecret, verifyDelivery, type Receiver } from '../support/webhooks.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function register(b: TestBusiness, url: string, events: string[]): Promise<{ id: string; secret: string }> {
  const secret = testSecret();
  expect((await post('/cl/v1/webhooks/endpoints', { url, secret, events }, { token: b.token })).status).to.equal(200);
  const list = await get('/cl/v1/webhooks/endpoints', { token: b.token });
  return { id: list.body.data[0].id, secret };
}

describe('events: listEvents', () => {
  it('lists the business events newest first, by code and time range, page by page', async () => {
    const b = await newBusiness();
    await topup(b.token, '1.00');
    await sleep(5);
    const middle = new Date().toISOString();
    await topup(b.token, '2.00');
    await topup(b.token, '3.00');

    const all = await get('/events', { token: b.token });
    expect(all.status).to.equal(200);
    expect(all.body.data.map((e: any) => e.data.amount)).to.deep.equal(['3.00', '2.00', '1.00']);
    expect(all.body.data[0]).to.have.keys(['id', 'code', 'created_at', 'data']);
    expect((await get('/events?code=topup.complete', { token: b.token })).body.data).to.have.length(3);
    expect((await get('/events?code=onboarding.complete', { token: b.token })).body.data).to.deep.equal([]);
    const later = await get(`/events?created_from=${encodeURIComponent(middle)}`, { token: b.token });
    expect(later.body.data.map((e: any) => e.data.amount)).to.deep.equal(['3.00', '2.00']);
    const earlier = await get(`/events?created_to=${encodeURIComponent(middle)}`, { token: b.token });
    expect(earlier.body.data.map((e: any) => e.data.amount)).to.deep.equal(['1.00']);

    const first = await get('/events?limit=2', { token: b.token });
    expect(first.body.has_more).to.equal(true);
    const second = await get(`/events?limit=2&cursor=${first.body.next_cursor}`, { token: b.token });
    expect(second.body.data.map((e: any) => e.data.amount)).to.deep.equal(['1.00']);
    expect(second.body.has_more).to.equal(false);

    expect((await get('/events', { token: (await newBusiness()).token })).body.data, 'another business sees none of them').to.deep.equal([]);
  });

  it('lists the events about one payout, or one customer, by object_id', async () => {
    const b = await newBusiness();
    const customer = await activeCustomer(b);
    await topupPayoutAccount(b, '50.00');
    const one = await createPayout(b, { payout_amount: '1.10', customer_id: customer.id });
    const two = await createPayout(b, { payout_amount: '2.20', customer_id: customer.id });
    await topup(b.token, '1.00');

    const ofOne = await get(`/events?object_id=${one.payout_id}`, { token: b.token });
    expect(ofOne.status).to.equal(200);
    expect(ofOne.body.data.length, 'the payout has events').to.be.greaterThan(0);
    expect(ofOne.body.data.every((e: any) => e.code.startsWith('payout.') && e.data.payout_id === one.payout_id)).to.equal(true);
    const ofTwo = await get(`/events?object_id=${two.payout_id.toUpperCase()}`, { token: b.token });
    expect(ofTwo.body.data.map((e: any) => e.data.payout_id)).to.include(two.payout_id).and.not.include(one.payout_id);
    const ofCustomer = await get(`/events?object_id=${customer.id}`, { token: b.token });
    expect(ofCustomer.body.data.map((e: any) => e.code), 'the payouts name the customer, but are about the payouts').to.deep.equal(['onboarding.complete']);
    expect((await get(`/events?object_id=${one.payout_id}&code=topup.complete`, { token: b.token })).body.data).to.deep.equal([]);
    expect((await get(`/events?object_id=${one.payout_id}`, { token: (await newBusiness()).token })).body.data, 'another business sees none').to.deep.equal([]);
    expectProblem(await get('/events?object_id=CB-7781', { token: b.token }), 400, 'VALIDATION_ERROR');
  });

  it('answers 400 VALIDATION_ERROR for an unknown code', async () => {
    const b = await newBusiness();
    expectProblem(await get('/events?code=wallet.exploded', { token: b.token }), 400, 'VALIDATION_ERROR');
  });
});

describe('events: redeliverEvent', function () {
  this.timeout(30_000);
  let hooks: Receiver;
  before(async () => {
    hooks = await startReceiver();
  });
  after(() => hooks.close());

  it('answers 202 and sends the event again to the endpoint, with the same webhook-id', async () => {
    const b = await newBusiness();
    const endpoint = await register(b, hooks.url, ['topup.complete']);
    const before = hooks.received.length;
    await topup(b.token, '7.00');
    await hooks.waitFor(before + 1);
    const [event] = (await get('/events', { token: b.token })).body.data;

    const res = await post(`/events/${event.id}/redeliveries`, { webhook_id: endpoint.id }, { token: b.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    expect(res.body).to.include({ event_id: event.id, webhook_id: endpoint.id, status: 'PENDING' });
    const received = await hooks.waitFor(before + 2);
    const again = received.slice(before).map((r) => verifyDelivery(endpoint.secret, r));
    expect(again.map((e) => e.id)).to.deep.equal([event.id, event.id]);
    expect(again[1]).to.deep.equal(again[0]);
  });

  it('answers 404 EVENT_NOT_FOUND for an unknown event or another business\'s', async () => {
    const b = await newBusiness();
    const endpoint = await register(b, hooks.url, ['topup.complete']);
    expectProblem(await post(`/events/${randomUUID()}/redeliveries`, { webhook_id: endpoint.id }, { token: b.token }), 404, 'EVENT_NOT_FOUND');
    const other = await newBusiness();
    await topup(other.token, '1.00');
    const [foreign] = (await get('/events', { token: other.token })).body.data;
    expectProblem(await post(`/events/${foreign.id}/redeliveries`, { webhook_id: endpoint.id }, { token: b.token }), 404, 'EVENT_NOT_FOUND');
  });

  it('answers 404 WEBHOOK_ENDPOINT_NOT_FOUND for an unknown endpoint or another business\'s', async () => {
    const b = await newBusiness();
    await topup(b.token, '1.00');
    const [event] = (await get('/events', { token: b.token })).body.data;
    expectProblem(await post(`/events/${event.id}/redeliveries`, { webhook_id: randomUUID() }, { token: b.token }), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
    const other = await newBusiness();
    const foreign = await register(other, hooks.url, ['topup.complete']);
    expectProblem(await post(`/events/${event.id}/redeliveries`, { webhook_id: foreign.id }, { token: b.token }), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
  });

  it('answers 422 WEBHOOK_ENDPOINT_NOT_SUBSCRIBED when the endpoint did not subscribe to the code', async () => {
    const b = await newBusiness();
    const endpoint = await register(b, hooks.url, ['onboarding.complete']);
    await topup(b.token, '1.00');
    const [event] = (await get('/events', { token: b.token })).body.data;
    expectProblem(await post(`/events/${event.id}/redeliveries`, { webhook_id: endpoint.id }, { token: b.token }), 422, 'WEBHOOK_ENDPOINT_NOT_SUBSCRIBED');
  });

  it('answers 409 WEBHOOK_ENDPOINT_DISABLED once the endpoint answered 410', async () => {
    const gone = await startReceiver(() => ({ status: 410 }));
    try {
      const b = await newBusiness();
      const endpoint = await register(b, gone.url, ['topup.complete']);
      await topup(b.token, '1.00');
      await gone.waitFor(1);
      const [event] = (await get('/events', { token: b.token })).body.data;
      for (let i = 0; ; i++) {
        const res = await post(`/events/${event.id}/redeliveries`, { webhook_id: endpoint.id }, { token: b.token });
        if (res.status === 409 || i === 50) {
          expectProblem(res, 409, 'WEBHOOK_ENDPOINT_DISABLED');
          break;
        }
        await sleep(100); // the 410 is being recorded
      }
    } finally {
      await gone.close();
    }
  });
});
