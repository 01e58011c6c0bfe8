/**
 * Bulk payouts at volume: the payout jobs are worked in batches (each kind of
 * step of one business in one transaction, src/payouts/processing.ts) and the webhook
 * deliveries several at a time per worker, so a bulk payout's payouts and their events go
 * out in seconds rather than one job per poll. The limits here are loose (a shared 2-core
 * CI machine); `npm run bench` measures the 1,000-item case against its targets.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { post } from '../support/client.js';
import { activeCustomer } from '../support/customers.js';
import { assertLedgerConsistent } from '../support/ledgerInvariants.js';
import { bulkPayoutSettled, payoutBusiness } from '../support/payouts.js';
import { running } from '../support/service.js';
import { startReceiver, testSecret, type Receiver } from '../support/webhooks.js';

const ITEMS = 300;

describe('bulk payouts at volume', function () {
  this.timeout(120_000);
  let hooks: Receiver | undefined;
  after(() => hooks?.close());

  it(`settles a bulk payout of ${ITEMS} items and delivers its ${3 * ITEMS} events within 30 s, each payout's in order of state`, async () => {
    const { b, customer } = await payoutBusiness('1000000.00');
    const customers = [customer, await activeCustomer(b), await activeCustomer(b)];
    hooks = await startReceiver();
    const endpoint = await post('/cl/v1/webhooks/endpoints', { url: hooks.url, secret: testSecret(), events: ['payout.pending', 'payout.processing', 'payout.completed'] }, { token: b.token });
    expect(endpoint.status).to.equal(200);

    const started = performance.now();
    // Cents 00–09: the sandbox rail completes them.
    const items = Array.from({ length: ITEMS }, (_, i) => ({ payout_amount: `${1 + (i % 7)}.0${i % 10}`, customer_id: customers[i % customers.length].id }));
    const created = await post('/bulk-payouts', { items }, { token: b.token, headers: { 'idempotency-key': randomUUID() } });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    expect(created.body.counts.PENDING).to.equal(ITEMS);
    const settled = await bulkPayoutSettled(b, created.body.bulk_payout_id, 30_000);
    const completedAfter = performance.now() - started;
    expect(settled.counts.COMPLETED).to.equal(ITEMS);
    const received = await hooks.waitFor(3 * ITEMS, Math.max(1_000, 30_000 - (performance.now() - started)));
    console.log(`      ${ITEMS} payouts COMPLETED ${Math.round(completedAfter)} ms and ${received.length} events delivered ${Math.round(performance.now() - started)} ms after the request`);

    // Each payout's three events, once each (distinct event ids), created in the order of its states.
    const byPayout = new Map<string, { code: string; created_at: string }[]>();
    const ids = new Set<string>();
    for (const r of received) {
      ids.add(r.json.id);
      const list = byPayout.get(r.json.data.payout_id) ?? [];
      list.push({ code: r.json.code, created_at: r.json.created_at });
      byPayout.set(r.json.data.payout_id, list);
    }
    expect(ids.size, 'distinct events').to.equal(3 * ITEMS);
    expect(byPayout.size).to.equal(ITEMS);
    for (const [id, events] of byPayout) {
      const ordered = [...new Map(events.map((e) => [e.code, e])).values()].sort((x, y) => x.created_at.localeCompare(y.created_at)).map((e) => e.code);
      expect(ordered, `events of payout ${id}`).to.deep.equal(['payout.pending', 'payout.processing', 'payout.completed']);
    }
    await assertLedgerConsistent(running().db, b.id);
  });
});
