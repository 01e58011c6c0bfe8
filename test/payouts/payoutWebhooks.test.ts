/**
 * A payout's webhook deliveries reach a real local receiver and
 * verify with the npm package `standardwebhooks`: `payout.pending`, `payout.processing`
 * and `payout.completed` for a paid payout, `payout.failed` for a refused one, each with
 * the payout's state in `data`.
 */
import { expect } from 'chai';
import { post } from '../support/client.js';
import { type TestBusiness } from '../support/fixtures.js';
import { createPayout, payoutBusiness, payoutReaching } from '../support/payouts.js';
import { startReceiver, testSecret, verifyDelivery, type Receiver } from '../support/webhooks.js';

const PAYOUT_EVENTS = ['payout.pending', 'payout.processing', 'payout.completed', 'payout.failed'];

describe('Payout webhooks: signed deliveries to a local receiver', function () {
  this.timeout(60_000);
  let b: TestBusiness;
  let customer: any;
  let hooks: Receiver;
  let secret: string;

  before(async () => {
    ({ b, customer } = await payoutBusiness());
    hooks = await startReceiver();
    secret = testSecret();
    const res = await post('/cl/v1/webhooks/endpoints', { url: hooks.url, secret, events: PAYOUT_EVENTS }, { token: b.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });

  after(() => hooks.close());

  /** The verified envelopes about `payoutId` once `count` have arrived, in their states' order. */
  async function envelopesOf(payoutId: string, count: number): Promise<any[]> {
    const until = Date.now() + 20_000;
    for (;;) {
      const mine = hooks.received.map((r) => verifyDelivery(secret, r)).filter((e) => e.data.payout_id === payoutId);
      if (mine.length >= count || Date.now() > until) {
        expect(mine, JSON.stringify(mine)).to.have.length(count);
        return mine.sort((x, y) => PAYOUT_EVENTS.indexOf(x.code) - PAYOUT_EVENTS.indexOf(y.code));
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('delivers payout.pending, payout.processing and payout.completed, each verified with standardwebhooks', async () => {
    const created = await createPayout(b, { payout_amount: '42.00', external_reference: 'webhook-0001', mobileNumber: customer.mobile_number });
    const done = await payoutReaching(b, created.payout_id, 'COMPLETED');
    const envelopes = await envelopesOf(created.payout_id, 3);
    expect(envelopes.map((e) => e.code)).to.deep.equal(['payout.pending', 'payout.processing', 'payout.completed']);
    expect(envelopes.map((e) => e.data.status)).to.deep.equal(['PENDING', 'PROCESSING', 'COMPLETED']);
    for (const e of envelopes) {
      expect(e.data).to.include({ amount: '42.00', currency: 'SAR', customer_id: customer.id, external_reference: 'webhook-0001' });
    }
    expect(envelopes[0].data.transaction_id).to.equal(created.transaction_id);
    expect(envelopes[2].data.transaction_id).to.equal(done.outcome_transaction_id);
    const delivery = hooks.received.find((r) => r.json.id === envelopes[2].id)!;
    expect(delivery.headers['webhook-id']).to.equal(envelopes[2].id);
    expect(String(delivery.headers.authorization)).to.match(/^Bearer /);
  });

  it('delivers payout.failed with the failure code for a payout the bank refuses', async () => {
    const created = await createPayout(b, { payout_amount: '7.13', customer_id: customer.id });
    await payoutReaching(b, created.payout_id, 'FAILED');
    const envelopes = await envelopesOf(created.payout_id, 3);
    expect(envelopes.map((e) => e.code)).to.deep.equal(['payout.pending', 'payout.processing', 'payout.failed']);
    expect(envelopes[2].data).to.include({ status: 'FAILED', failure_code: 'REJECTED_BY_BANK' });
  });
});
