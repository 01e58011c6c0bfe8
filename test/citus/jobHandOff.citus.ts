/**
 * The job queue and a business's shard, atomic on Citus (run by `npm run test:citus`): the
 * queue (pg-boss) is on the coordinator, a business's payouts on a worker, and a job a
 * business's transaction enqueues waits in the job outbox on the business's shard until
 * the commit (src/jobs/outbox.ts). An instance that creates payouts and a bulk payout while
 * the queue's table is held is killed between the commit and the hand-off; its payouts are
 * in the ledger, their jobs nowhere in the queue. The suite's own instance sweeps the
 * outbox and pays every payout exactly once.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { get, post } from '../support/client.js';
import { assertLedgerConsistent } from '../support/ledgerInvariants.js';
import { payoutBusiness } from '../support/payouts.js';
import { killServiceProcess, startServiceProcess, type ServiceProcess } from '../support/property/processes.js';
import { running } from '../support/service.js';

describe('Citus: a crash between a payout\'s commit on its worker and its job\'s hand-off to the coordinator', function () {
  this.timeout(240_000);
  let victim: ServiceProcess | undefined;
  before(function () {
    if (!process.env.CITUS_SUITE) this.skip();
  });
  after(async () => {
    if (victim) await killServiceProcess(victim);
  });

  it('loses no job: every payout the killed instance committed is paid once', async () => {
    const { b, customer } = await payoutBusiness('100.00');
    const db = running().db;
    // The suite's signing secret (test/support/service.ts): the business's token is good on both instances.
    victim = await startServiceProcess(running().databaseUrl, 90_000, { JOB_POLLING_INTERVAL_MS: '500', JWT_SECRET: 'test-secret-test-secret-test-secret' });
    const holder = await db.transaction();
    const ids: string[] = [];
    try {
      await holder.raw("SET LOCAL citus.multi_task_query_log_level = 'off'");
      await holder.raw('LOCK TABLE pgboss.job IN EXCLUSIVE MODE');
      for (let i = 0; i < 4; i++) {
        const res = await post('/payouts/', { payout_amount: '1.00', payout_purpose: 'Cashback', external_reference: `handoff-${i}`, customer_id: customer.id }, {
          token: b.token,
          baseUrl: victim.url,
          headers: { 'idempotency-key': randomUUID() },
        });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        ids.push(res.body.payout_id);
      }
      const bulk = await post('/bulk-payouts', { items: [1, 2].map(() => ({ payout_amount: '1.00', customer_id: customer.id })) }, {
        token: b.token,
        baseUrl: victim.url,
        headers: { 'idempotency-key': randomUUID() },
      });
      expect(bulk.status, JSON.stringify(bulk.body)).to.equal(200);
      ids.push(...(await db('bulk_payout_items').where({ business_id: b.id, bulk_payout_id: bulk.body.bulk_payout_id }).pluck('payout_id')));
      expect(ids).to.have.length(6);
      const staged = await db('job_outbox').where({ business_id: b.id }).count<{ n: string }[]>({ n: '*' });
      expect(Number(staged[0].n), 'outbox rows on the business\'s shard').to.equal(5);
      await killServiceProcess(victim);
      victim = undefined;
      // The dead instance's hand-offs still waiting for the table end with it.
      await holder.raw(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                         WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ~* 'insert into pgboss\\.'`);
    } finally {
      await holder.rollback();
    }
    const queued = await db.raw(`SELECT count(*)::int AS n FROM pgboss.job WHERE data->>'business_id' = ?`, [b.id]);
    expect(queued.rows[0].n, 'jobs of the business in the queue after the crash').to.equal(0);

    const deadline = Date.now() + 90_000;
    let statuses: string[] = [];
    while (Date.now() < deadline) {
      statuses = await Promise.all(ids.map(async (id) => (await get(`/payouts/${id}`, { token: b.token })).body.status));
      if (statuses.every((s) => s === 'COMPLETED')) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(statuses).to.deep.equal(ids.map(() => 'COMPLETED'));
    const completions = await db('transactions').where({ business_id: b.id, type: 'CUSTOMER_PAYOUT_COMPLETION' }).count<{ n: string }[]>({ n: '*' });
    expect(Number(completions[0].n), 'one completion per payout').to.equal(ids.length);
    expect(Number((await db('job_outbox').where({ business_id: b.id }).count<{ n: string }[]>({ n: '*' }))[0].n), 'outbox rows left').to.equal(0);
    await assertLedgerConsistent(db, b.id);
  });
});
