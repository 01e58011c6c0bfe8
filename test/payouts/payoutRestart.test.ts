/**
 * Payout processing across a restart: payouts created on one instance,
 * which is stopped while their jobs are queued or running, are finished by the
 * instance started next, each exactly once (one completion transaction, one event
 * per state), and the ledger holds. On a database of its own, so that only the
 * instances started here process its jobs.
 *
 * And across a crash: of two instances (processes, as `npm start` runs them) one is
 * killed with SIGKILL while it holds payout jobs; the other finishes every payout
 * within 30 s of the kill, each exactly once.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import knex from 'knex';
import type { RunningService } from '../../src/server.js';
import { get, post } from '../support/client.js';
import { activeCustomer } from '../support/customers.js';
import { killServiceProcess, startServiceProcesses, type ServiceProcess } from '../support/property/processes.js';
import { running, startExtraService } from '../support/service.js';

const PAYOUTS = 8;

/** Sends PAYOUTS payouts of 1.00 to `mobile` through `baseUrl`; returns their ids. */
async function sendPayouts(baseUrl: string, token: string, mobile: string, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < PAYOUTS; i++) {
    const res = await post('/payouts/', { payout_amount: '1.00', payout_purpose: 'Cashback', external_reference: `${prefix}-${i}`, mobileNumber: mobile }, {
      token,
      baseUrl,
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    ids.push(res.body.payout_id);
  }
  return ids;
}

/** Exactly once: one completion transaction and one event per state for each payout, the money in the wallet. */
async function expectCompletedOnce(service: { url: string }, db: knex.Knex, token: string, ids: string[], walletId: string): Promise<void> {
  const completions = await db('transactions').where({ type: 'CUSTOMER_PAYOUT_COMPLETION' }).count<{ count: string }[]>('* as count');
  expect(Number(completions[0].count)).to.equal(PAYOUTS);
  const events = await db('outbox_events').whereIn('code', ['payout.pending', 'payout.processing', 'payout.completed']).select('code', 'data');
  for (const id of ids) {
    const codes = events.filter((e) => (e.data as { payout_id: string }).payout_id === id).map((e) => e.code).sort();
    expect(codes, id).to.deep.equal(['payout.completed', 'payout.pending', 'payout.processing']);
  }
  const wallet = await get(`/cl/v1/wallets/${walletId}/balance`, { token, baseUrl: service.url });
  expect(wallet.body.balance).to.equal(`${PAYOUTS}.00`);
  const sums = await db('ledger_entries').sum<{ sum: string }[]>('amount as sum');
  expect(sums[0].sum, 'every transaction balanced').to.equal('0.00');
}

/** The demo business's token on `baseUrl`, an ACTIVE customer of it and 100.00 on its payout account. */
async function demoPayouts(baseUrl: string): Promise<{ token: string; customer: any }> {
  const login = await post('/auth/token', { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' }, { baseUrl });
  const token = login.body.access_token;
  const customer = await activeCustomer({ token, baseUrl });
  expect((await post('/testhelpers/payout-account/topups', { amount: '100.00' }, { token, baseUrl })).status).to.equal(201);
  return { token, customer };
}

/**
 * A database of its own for the enclosing suite (created before it, dropped after it), its
 * service processes (killed after it) and a knex on it.
 */
function processDatabase(prefix: string): { url: () => string; db: () => knex.Knex; services: ServiceProcess[] } {
  const database = `${prefix}_${randomUUID().slice(0, 8)}`;
  let url = '';
  const services: ServiceProcess[] = [];
  let db: knex.Knex | undefined;
  before(async () => {
    await running().db.raw(`CREATE DATABASE ${database}`);
    url = running().databaseUrl.replace(/\/[^/]*$/, `/${database}`);
    db = knex({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
  });
  after(async () => {
    await Promise.all(services.map((s) => killServiceProcess(s)));
    await db?.destroy();
    await running().db.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });
  return { url: () => url, db: () => db!, services };
}

describe('payout processing across a restart', function () {
  this.timeout(180_000);
  const database = `wallet_payouts_${randomUUID().slice(0, 8)}`;
  const services: RunningService[] = [];

  before(() => running().db.raw(`CREATE DATABASE ${database}`));
  after(async () => {
    for (const s of services) await s.close().catch(() => undefined);
    await running().db.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  it('a payout whose instance stops is finished by the next one, exactly once', async () => {
    const first = await startExtraService({ payoutProcessingMs: 1_500 }, database);
    services.push(first);
    const { token, customer } = await demoPayouts(first.url);
    const ids = await sendPayouts(first.url, token, customer.mobile_number, 'restart');
    // Stop while the payouts wait to be settled (1.5 s after they were submitted).
    const unsettled = await first.db('payouts').whereIn('id', ids).whereNot({ status: 'COMPLETED' }).count<{ count: string }[]>('* as count');
    expect(Number(unsettled[0].count), 'payouts still in flight when the instance stops').to.be.above(0);
    await first.close();
    services.splice(services.indexOf(first), 1);

    const second = await startExtraService({ payoutProcessingMs: 1_500 }, database);
    services.push(second);
    const deadline = Date.now() + 120_000;
    let statuses: string[] = [];
    while (Date.now() < deadline) {
      statuses = await Promise.all(ids.map(async (id) => (await get(`/payouts/${id}`, { token, baseUrl: second.url })).body.status));
      if (statuses.every((s) => s === 'COMPLETED')) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(statuses).to.deep.equal(ids.map(() => 'COMPLETED'));

    await expectCompletedOnce(second, second.db, token, ids, customer.wallet_id);
  });
});

describe('payout processing across a crash (SIGKILL) of the instance running it', function () {
  this.timeout(240_000);
  const { url, db, services } = processDatabase('wallet_payout_kill');

  it('every payout is final within 30 s of the kill, each exactly once', async () => {
    // SETTLE is due 3 s after SUBMIT: time to hold the payouts' jobs before they run.
    const env = { PAYOUT_PROCESSING_MS: '3000', JOB_POLLING_INTERVAL_MS: '500' };
    // The victim runs alone until it is killed, so the jobs held at the kill are its own
    // (one worker fetches several jobs at once: with two instances running, one of them
    // could hold them all); the survivor starts after the kill.
    services.push(...(await startServiceProcesses(url(), [env])));
    const [victim] = services;
    const { token, customer } = await demoPayouts(victim.url);
    const ids = await sendPayouts(victim.url, token, customer.mobile_number, 'kill');
    // Every payout submitted first (PROCESSING, its SETTLE due 3 s later): a SUBMIT still to
    // run when the table is held below would block on it, and its SETTLE would never start.
    const processing = async () => Number((await db()('payouts').whereIn('id', ids).where({ status: 'PROCESSING' }).count({ n: '*' }))[0].n);
    const submitted = Date.now() + 20_000;
    while (Date.now() < submitted && (await processing()) < PAYOUTS) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await processing(), 'payouts submitted (PROCESSING) before the table is held').to.equal(PAYOUTS);

    // Hold the payouts table: each SETTLE job that starts blocks on its first read, with
    // nothing written. Once every payout's SETTLE job is active, kill the victim, then let go.
    const holder = await db().transaction();
    let killedAt = 0;
    try {
      await holder.raw('LOCK TABLE payouts IN ACCESS EXCLUSIVE MODE');
      const deadline = Date.now() + 20_000;
      let held = 0;
      while (held < PAYOUTS && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        held = Number(
          (await db().raw(`SELECT coalesce(sum(CASE WHEN jsonb_exists(data, 'payout_ids') THEN jsonb_array_length(data->'payout_ids') ELSE 1 END), 0) AS n
                            FROM pgboss.job WHERE name = 'payout-processing' AND state = 'active' AND data->>'step' = 'SETTLE'`)).rows[0].n,
        );
      }
      expect(held, 'SETTLE steps held by the victim').to.equal(PAYOUTS);
      await killServiceProcess(victim, 'SIGKILL');
      killedAt = Date.now();
    } finally {
      await holder.rollback();
    }
    services.push(...(await startServiceProcesses(url(), [env])));
    const survivor = services[1];

    let statuses: string[] = [];
    while (Date.now() - killedAt < 60_000) {
      statuses = await Promise.all(ids.map(async (id) => (await get(`/payouts/${id}`, { token, baseUrl: survivor.url })).body.status));
      if (statuses.every((s) => s === 'COMPLETED')) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const finalAfter = Date.now() - killedAt;
    console.log(`      ${PAYOUTS} payouts, jobs held by the killed instance: every payout COMPLETED ${finalAfter} ms after the kill`);
    expect(statuses).to.deep.equal(ids.map(() => 'COMPLETED'));
    expect(finalAfter, 'recovery time').to.be.below(30_000);
    await expectCompletedOnce(survivor, db(), token, ids, customer.wallet_id);
  });
});

describe('payout jobs across a crash between the commit and the hand-off to the job queue', function () {
  this.timeout(240_000);
  const { url, db, services } = processDatabase('wallet_outbox_kill');

  it('the payouts committed by the killed instance are enqueued by the next one, each payout final once', async () => {
    const env = { PAYOUT_PROCESSING_MS: '200', JOB_POLLING_INTERVAL_MS: '500', JOB_MAINTENANCE_INTERVAL_SECONDS: '2' };
    services.push(...(await startServiceProcesses(url(), [env])));
    const [victim] = services;
    const { token, customer } = await demoPayouts(victim.url);

    // Hold the job queue's table: every hand-off after a commit waits on it, nothing enqueued.
    const holder = await db().transaction();
    let ids: string[] = [];
    try {
      await holder.raw('LOCK TABLE pgboss.job IN EXCLUSIVE MODE');
      ids = await sendPayouts(victim.url, token, customer.mobile_number, 'handoff');
      const bulk = await post('/bulk-payouts', { items: [1, 2, 3].map(() => ({ payout_amount: '1.00', customer_id: customer.id })) }, {
        token,
        baseUrl: victim.url,
        headers: { 'idempotency-key': randomUUID() },
      });
      expect(bulk.status, JSON.stringify(bulk.body)).to.equal(200);
      const items = await db()('bulk_payout_items').where({ bulk_payout_id: bulk.body.bulk_payout_id }).pluck('payout_id');
      expect(items).to.have.length(3);
      ids.push(...items);
      const staged = await db()('job_outbox').count<{ n: string }[]>({ n: '*' });
      expect(Number(staged[0].n), 'one outbox row per payout and one for the bulk payout').to.equal(PAYOUTS + 1);
      // The instance dies between the two steps: its payouts committed, their jobs not in the queue.
      await killServiceProcess(victim, 'SIGKILL');
      services.splice(0, 1);
      // The dead instance's statements still waiting for the table end with it.
      await db().raw(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'wallet-service-jobs'`);
    } finally {
      await holder.rollback();
    }
    const enqueued = await db().raw(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'payout-processing'`);
    expect(enqueued.rows[0].n, 'jobs in the queue after the crash').to.equal(0);
    const statuses = await db()('payouts').whereIn('id', ids).pluck('status');
    expect(statuses).to.deep.equal(ids.map(() => 'PENDING'));

    const killedAt = Date.now();
    services.push(...(await startServiceProcesses(url(), [env])));
    const [survivor] = services;
    let final: string[] = [];
    while (Date.now() - killedAt < 60_000) {
      final = await Promise.all(ids.map(async (id) => (await get(`/payouts/${id}`, { token, baseUrl: survivor.url })).body.status));
      if (final.every((s) => s === 'COMPLETED')) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(final).to.deep.equal(ids.map(() => 'COMPLETED'));
    const completions = await db()('transactions').where({ type: 'CUSTOMER_PAYOUT_COMPLETION' }).count<{ n: string }[]>({ n: '*' });
    expect(Number(completions[0].n), 'one completion per payout').to.equal(ids.length);
    const submits = await db().raw(`SELECT coalesce(sum(CASE WHEN jsonb_exists(data, 'payout_ids') THEN jsonb_array_length(data->'payout_ids') ELSE 1 END), 0)::int AS n
                                     FROM pgboss.job WHERE name = 'payout-processing' AND data->>'step' = 'SUBMIT'`);
    expect(submits.rows[0].n, 'payouts in SUBMIT jobs: each once').to.equal(ids.length);
    expect(Number((await db()('job_outbox').count<{ n: string }[]>({ n: '*' }))[0].n), 'outbox rows left').to.equal(0);
  });
});
