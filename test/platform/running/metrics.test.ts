/**
 * Prometheus metrics at GET /metrics: requests and latency per operationId
 * and status, ledger transactions per type, database pool use, outbox backlog and the
 * age of its oldest event, the background lane's transactions.
 */
import { expect } from 'chai';
import { inBackground } from '../../../src/kernel/scheduling/background.js';
import { eventually } from '../../support/assertions.js';
import { get, post } from '../../support/client.js';
import { newBusiness, newWallet, topup } from '../../support/fixtures.js';
import { running } from '../../support/service.js';

/** The value of the sample `name{labels}` in an exposition, or undefined. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(labels ? `${name}{${labels}}` : `${name} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('metrics', () => {
  it('GET /metrics counts requests, latency, ledger transactions, pool use and the outbox', async () => {
    const b = await newBusiness();
    const before = (await get('/metrics')).body as string;
    const wallet = await newWallet(b.token);
    // One TOPUP, and one topup.complete event in the outbox, which the test then holds
    // (row lock: the relay skips locked events) so that it is still waiting at the scrape.
    const holder = await running().db.transaction();
    let res: Awaited<ReturnType<typeof get>>;
    let topups: string;
    try {
      let held = 0;
      while (held === 0) {
        await topup(b.token, '10.00');
        held = (await holder('outbox_pending').where({ business_id: b.id }).forUpdate().pluck('event_id')).length;
      }
      topups = (await holder('transactions').where({ business_id: b.id, type: 'TOPUP' }).count<{ count: string }[]>('* as count'))[0].count;
      const key = `metrics-${wallet.id}`;
      for (let i = 0; i < 2; i++) {
        expect((await post('/cl/v1/funds', { wallet_id: wallet.id, amount: '1.00' }, { token: b.token, idempotencyKey: key })).status).to.equal(201);
      }
      expect((await get(`/cl/v1/wallets/${wallet.id}`, { token: b.token })).status).to.equal(200);

      res = await get('/metrics');
    } finally {
      await holder.commit();
    }
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    const text = res.body as string;
    const delta = (name: string, labels: string) => (sample(text, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    expect(delta('http_requests_total', 'operation_id="createFund",status="201"')).to.equal(2);
    expect(delta('http_requests_total', 'operation_id="getWallet",status="200"')).to.equal(1);
    expect(delta('http_request_duration_seconds_count', 'operation_id="getWallet",status="200"')).to.equal(1);
    expect(delta('ledger_transactions_total', 'type="FUND"'), 'the replayed fund posted nothing').to.equal(1);
    expect(delta('ledger_transactions_total', 'type="TOPUP"')).to.equal(Number(topups));
    expect(sample(text, 'db_pool_connections', 'pool="api",state="used"')).to.be.at.least(0);
    expect(sample(text, 'db_pool_connections', 'pool="background",state="free"'), "the background lane's own pool").to.be.at.least(0);
    expect(sample(text, 'outbox_backlog_events')).to.be.at.least(1);
    expect(sample(text, 'outbox_oldest_event_age_seconds')).to.be.greaterThan(0);
    expect(sample(text, 'process_resident_memory_bytes')).to.be.greaterThan(0);
  });

  it('GET /metrics shows the background lane: work running and work waiting for it', async () => {
    // The test's modules and the service's are one instance each (.mocharc.json), so this
    // is the lane the service configured and its handlers use.
    const { db } = running();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding = inBackground(db, () => held);
    const waiting = inBackground(db, async () => 'ran');
    try {
      const text = (await get('/metrics')).body as string;
      expect(sample(text, 'background_transactions', 'state="running"')).to.equal(1);
      expect(sample(text, 'background_transactions', 'state="waiting"')).to.be.at.least(1);
    } finally {
      release();
    }
    await holding;
    expect(await waiting).to.equal('ran');
    // The service's own background work (webhook attempts of earlier tests) may be queued
    // for the lane at that moment: the lane drains.
    await eventually(async () => {
      const after = (await get('/metrics')).body as string;
      expect(sample(after, 'background_transactions', 'state="waiting"')).to.equal(0);
    }, 10_000);
  });
});
