/**
 * The failover drill (`npm run test:ha`, scripts/ha-suite.ts, which starts the cluster of
 * `npm run ha` and runs this file with DATABASE_URL on HAProxy's read-write port and HA_DIR
 * naming the cluster's folder).
 *
 * Two service processes (src/main.ts, as `npm start` runs it; the service under test runs on
 * the same database, a third instance with the same keys) serve a mixed load on the HA
 * database: keyed funds, transfers and top-ups (each with its own Idempotency-Key and an
 * external_reference equal to it), keyed core payouts to an onboarded customer, one bulk
 * payout per phase, and the webhook deliveries of every top-up and payout event to a local
 * receiver. Instance 0 waits through a failover for a keyed request (DB_FAILOVER_WAIT_MS's
 * default), instance 1 answers it 503 at once (DB_FAILOVER_WAIT_MS=0), so both ways out are
 * taken. In each phase the cluster loses its primary:
 *   1. the leader's postmaster is killed (SIGKILL); Patroni fails over to the synchronous
 *      standby, and the old primary comes back as a replica (pg_rewind);
 *   2. the same again, the new leader killed;
 *   3. a planned switchover (`npm run ha -- switchover`) under the same load.
 * After each: every request was answered, none 500 (a switchover: nothing but 2xx and 503
 * with Retry-After); every request whose outcome the client did not learn (a 503, a dropped
 * connection) sent again with its key until it is answered; then every acknowledged movement
 * is in the ledger exactly once (by its external_reference), the ledger's invariants hold,
 * every payout reaches a final state with exactly one event per state, the bulk payout
 * settles, and every event was delivered to the receiver at least once under its own id.
 * Each phase prints: acknowledged writes, lost, duplicated, 500s, 503s, the seconds from the
 * fault to the first acknowledged write sent after it, and the longest stretch without any
 * acknowledged write (a write sent just after a postmaster's SIGKILL may still commit on its
 * orphaned backends, replicated synchronously: the stretch is the outage clients see).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import { clusterStatus, healthy, readState, switchover, until } from '../../scripts/ha/cluster.js';
import { get, post } from '../support/client.js';
import { activeCustomer } from '../support/customers.js';
import { ledgerInvariants } from '../support/ledgerInvariants.js';
import { killServiceProcess, startServiceProcesses, type ServiceProcess } from '../support/property/processes.js';
import { testKeysEnv } from '../support/service.js';
import { startReceiver, type Receiver } from '../support/webhooks.js';

const HA_DIR = process.env.HA_DIR ?? '';
const DATABASE_URL = process.env.DATABASE_URL ?? '';
/** Workers sending the load, spread over both instances. */
const WORKERS = 6;
/** Load before the fault, and at least this much of successes after the cluster is whole again. */
const SETTLE_MS = 3_000;
/** The drill's target: the first acknowledged write this soon after the fault. */
const TARGET_SECONDS = 15;
/**
 * How long payouts and deliveries may take to settle after a phase: a job taken from the
 * queue as the primary died (its fetch committed, its answer lost) runs again only once it
 * expires, a minute for a delivery (src/webhooks/dispatcher.ts).
 */
const SETTLED_WITHIN_MS = 180_000;
const EVENTS = ['topup.complete', 'payout.pending', 'payout.processing', 'payout.completed', 'payout.failed'];

type Kind = 'fund' | 'transfer' | 'topup' | 'payout';

/** One keyed write and what became of it. */
interface Write {
  kind: Kind;
  key: string;
  path: string;
  body: Record<string, unknown>;
  token: 'cl' | 'core';
  instance: number;
  sentAt: number;
  at: number;
  /** The first answer's status; 0 when the connection failed. */
  status: number;
  retryAfter?: string | null;
  /** The transaction or payout id of the 2xx answer (the first, or the one its key settled to). */
  id?: string;
  settled?: boolean;
}

describe('failover drill on a highly available PostgreSQL', function () {
  this.timeout(900_000);
  const logDir = mkdtempSync(path.join(tmpdir(), 'wallet-ha-drill-'));
  const services: ServiceProcess[] = [];
  let db: Knex;
  let receiver: Receiver;
  const tokens = { cl: '', core: '' };
  let businessId: string;
  let wallets: string[] = [];
  let customer: { mobile_number: string; wallet_id: string };
  const payoutIds: string[] = [];
  const bulkIds: string[] = [];

  before(async function () {
    if (!HA_DIR || !DATABASE_URL) this.skip();
    db = knex({ client: 'pg', connection: DATABASE_URL, pool: { min: 0, max: 2 }, log: { warn() {}, error() {}, deprecate() {}, debug() {} } });
    receiver = await startReceiver();
    services.push(
      ...(await startServiceProcesses(
        DATABASE_URL,
        // Instance 0 holds a keyed request through the failover (DB_FAILOVER_WAIT_MS, 5 s by
        // default); instance 1 answers it 503 at once, and its client sends it again with its key.
        [0, 1].map((i) => ({
          // The keys of the service under test, a third instance on the same database.
          ...testKeysEnv(),
          LOG_FILE: path.join(logDir, `instance-${i}.log`),
          PAYOUT_PROCESSING_MS: '1000',
          WEBHOOK_RETRY_SCALE: '0.001',
          JOB_POLLING_INTERVAL_MS: '500',
          ...(i === 1 ? { DB_FAILOVER_WAIT_MS: '0' } : {}),
        })),
      )),
    );
    const baseUrl = services[0].url;
    const login = { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' };
    tokens.cl = (await post('/cl/v1/auth/token', login, { baseUrl })).body.access_token;
    tokens.core = (await post('/auth/token', login, { baseUrl })).body.access_token;
    businessId = (await db('api_clients').where({ client_id: 'demo-business' }).first('business_id')).business_id;
    const endpoint = await post('/cl/v1/webhooks/endpoints', { url: receiver.url, secret: `whsec_${Buffer.alloc(24, 7).toString('base64')}`, events: EVENTS }, { token: tokens.cl, baseUrl });
    expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(200);
    for (let i = 0; i < 6; i++) wallets.push((await post('/cl/v1/wallets', { name: `drill ${i}` }, { token: tokens.cl, baseUrl })).body.id);
    expect((await post('/cl/v1/testhelpers/topups', { amount: '1000000.00' }, { token: tokens.cl, baseUrl })).status).to.equal(201);
    for (const w of wallets) expect((await post('/cl/v1/funds', { wallet_id: w, amount: '10000.00' }, { token: tokens.cl, baseUrl })).status).to.equal(201);
    customer = await activeCustomer({ token: tokens.core, baseUrl });
    expect((await post('/testhelpers/payout-account/topups', { amount: '100000.00' }, { token: tokens.core, baseUrl })).status).to.equal(201);
  });

  let failed = false;
  afterEach(function () {
    if (this.currentTest?.state === 'failed') failed = true;
  });
  after(async () => {
    await Promise.all(services.map((s) => killServiceProcess(s)));
    await receiver?.close();
    await db?.destroy();
    if (failed) console.log(`      the instances' logs are kept in ${logDir}`);
    else rmSync(logDir, { recursive: true, force: true });
  });

  /** The next write of worker `n`'s i-th turn: mostly funds and transfers, some top-ups and core payouts. */
  function nextWrite(n: number, i: number): Omit<Write, 'sentAt' | 'at' | 'status'> {
    const key = randomUUID();
    const instance = (n + i) % 2;
    const wallet = wallets[(n * 7 + i) % wallets.length];
    const turn = (n * 13 + i) % 10;
    if (turn === 0) return { kind: 'payout', key, path: '/payouts/', token: 'core', instance, body: { payout_amount: '1.00', payout_purpose: 'Cashback', external_reference: key, mobileNumber: customer.mobile_number } };
    if (turn === 1) return { kind: 'topup', key, path: '/cl/v1/testhelpers/topups', token: 'cl', instance, body: { amount: '5.00', external_reference: key } };
    if (turn < 6) return { kind: 'fund', key, path: '/cl/v1/funds', token: 'cl', instance, body: { wallet_id: wallet, amount: '1.00', external_reference: key } };
    const destination = wallets[(n * 7 + i + 1) % wallets.length];
    return { kind: 'transfer', key, path: '/cl/v1/transfers', token: 'cl', instance, body: { source_wallet_id: wallet, destination_wallet_id: destination, amount: '0.25', external_reference: key } };
  }

  /** Sends `w` (again, for a settlement); records the answer. Never throws for a dropped connection. */
  async function send(w: Omit<Write, 'sentAt' | 'at' | 'status'> & Partial<Write>, instance = w.instance): Promise<{ status: number; id?: string; retryAfter?: string | null; code?: string }> {
    try {
      const res = await post(w.path, w.body, { token: tokens[w.token], baseUrl: services[instance].url, idempotencyKey: w.key });
      const id = res.status < 300 ? (w.kind === 'payout' ? res.body.payout_id : res.body.id) : undefined;
      return { status: res.status, id, retryAfter: res.headers.get('retry-after'), code: res.body?.code };
    } catch (err) {
      if (!(err instanceof TypeError)) throw err; // fetch's "fetch failed": the connection, not the contract
      return { status: 0 };
    }
  }

  /** Runs the load until `stop()` is called; returns its writes. */
  function load(): { writes: Write[]; stop(): Promise<void> } {
    const writes: Write[] = [];
    let stopping = false;
    const worker = async (n: number) => {
      for (let i = 0; !stopping; i++) {
        const w = nextWrite(n, i);
        const sentAt = Date.now();
        const answer = await send(w);
        writes.push({ ...w, sentAt, at: Date.now(), status: answer.status, id: answer.id, retryAfter: answer.retryAfter });
        if (answer.status >= 300 || answer.status === 0) await new Promise((r) => setTimeout(r, 100));
      }
    };
    const running = Promise.all(Array.from({ length: WORKERS }, (_, n) => worker(n)));
    return {
      writes,
      async stop() {
        stopping = true;
        await running;
      },
    };
  }

  /** Sends each write whose outcome the client did not learn again with its key until it is answered 2xx. */
  async function settle(writes: Write[]): Promise<number> {
    const unknown = writes.filter((w) => w.status === 0 || w.status === 503 || w.status === 409);
    for (const w of unknown) {
      const deadline = Date.now() + 60_000;
      for (let attempt = 0; ; attempt++) {
        const answer = await send(w, attempt % 2);
        if (answer.status >= 200 && answer.status < 300) {
          w.id = answer.id;
          w.settled = true;
          break;
        }
        if (![0, 409, 503].includes(answer.status) || Date.now() > deadline) throw new Error(`${w.kind} ${w.key} could not be settled: last answer ${answer.status} ${answer.code ?? ''}`);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    return unknown.length;
  }

  /** The bulk payout of a phase: ten items to the customer, keyed. */
  async function bulkPayout(phase: string): Promise<void> {
    const items = Array.from({ length: 10 }, (_, i) => ({ payout_amount: '2.00', external_reference: `bulk-${phase}-${i}`, mobileNumber: customer.mobile_number }));
    const key = randomUUID();
    for (let attempt = 0; ; attempt++) {
      const res = await post('/bulk-payouts', { items }, { token: tokens.core, baseUrl: services[attempt % 2].url, idempotencyKey: key }).catch(() => ({ status: 0, body: {} }) as never);
      if (res.status >= 200 && res.status < 300) {
        bulkIds.push(res.body.bulk_payout_id);
        return;
      }
      if (![0, 409, 503].includes(res.status) || attempt > 60) throw new Error(`the bulk payout of ${phase} was not accepted: ${res.status} ${JSON.stringify(res.body)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  /**
   * One phase: load, `fault()` (returns when the fault is done), load until the cluster is whole
   * and writes succeed again, then the checks. Prints the phase's line.
   */
  async function phase(name: string, fault: () => Promise<void>, onlyRetryAfter503: boolean): Promise<void> {
    const traffic = load();
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const bulk = bulkPayout(name);
    const faultAt = Date.now();
    let faultDone = 0;
    try {
      await fault();
      faultDone = Date.now();
      await until(() => healthy(readState(HA_DIR)!.ports), 180_000, 'the cluster to be whole again');
      const wholeAt = Date.now();
      await until(() => traffic.writes.filter((w) => w.sentAt > wholeAt && w.status >= 200 && w.status < 300).length >= 20, 60_000, 'writes to succeed after the fault');
      await new Promise((r) => setTimeout(r, SETTLE_MS));
    } finally {
      await traffic.stop();
      await bulk.catch(() => undefined);
    }
    await bulk;
    const { writes } = traffic;
    const count = (status: number) => writes.filter((w) => w.status === status).length;
    const firstAck = Math.min(...writes.filter((w) => w.sentAt >= faultAt && w.status >= 200 && w.status < 300).map((w) => w.at));
    const seconds = (firstAck - faultAt) / 1000;
    const acks = writes.filter((w) => w.status >= 200 && w.status < 300).map((w) => w.at).sort((a, b) => a - b);
    const gap = Math.max(...acks.slice(1).map((t, i) => t - acks[i])) / 1000;
    const unexpected = writes.filter((w) => ![200, 201, 503].includes(w.status));
    const without = writes.filter((w) => w.status === 503 && !(Number(w.retryAfter) > 0));
    const settled = await settle(writes);
    for (const w of writes.filter((x) => x.kind === 'payout' && x.id)) payoutIds.push(w.id!);

    // Every key in the ledger exactly once, as acknowledged.
    const movements = writes.filter((w) => w.kind !== 'payout');
    const rows: { external_reference: string; id: string }[] = await db('transactions').where({ business_id: businessId }).whereIn('external_reference', movements.map((w) => w.key)).select('external_reference', 'id');
    const byKey = new Map<string, string[]>();
    for (const r of rows) byKey.set(r.external_reference, [...(byKey.get(r.external_reference) ?? []), r.id]);
    const acknowledged = movements.filter((w) => w.status >= 200 && w.status < 300);
    const lost = movements.filter((w) => !(byKey.get(w.key) ?? []).includes(w.id!));
    const duplicated = [...byKey.values()].filter((ids) => ids.length > 1);
    const payoutRows: { external_reference: string; n: string }[] = await db('payouts').where({ business_id: businessId }).whereIn('external_reference', writes.filter((w) => w.kind === 'payout').map((w) => w.key)).groupBy('external_reference').select('external_reference', db.raw('count(*) AS n'));
    const payoutsTwice = payoutRows.filter((r) => Number(r.n) !== 1);
    const payoutsLost = writes.filter((w) => w.kind === 'payout').length - payoutRows.length;
    console.log(
      `      ${name}: ${writes.length} writes, acknowledged writes ${acknowledged.length + writes.filter((w) => w.kind === 'payout' && w.status === 200).length}, lost ${lost.length + payoutsLost}, duplicated ${duplicated.length + payoutsTwice.length}, ` +
        `500s ${count(500)}, 503s ${count(503)}, dropped connections ${count(0)}, unknown outcomes settled with their key ${settled}, seconds from ${onlyRetryAfter503 ? 'switchover' : 'kill'} to first acknowledged write ${seconds.toFixed(1)}, longest stretch without one ${gap.toFixed(1)} s` +
        ` (fault done after ${((faultDone - faultAt) / 1000).toFixed(1)} s)`,
    );
    expect(unexpected.map((w) => `${w.kind} ${w.status}`), 'only 200, 201 and 503 answers').to.deep.equal([]);
    expect(without.length, '503s without Retry-After').to.equal(0);
    expect(lost.map((w) => w.key), 'acknowledged movements missing from the ledger').to.deep.equal([]);
    expect(duplicated, 'movements in the ledger twice').to.deep.equal([]);
    expect(payoutsTwice, 'payouts made twice').to.deep.equal([]);
    expect(payoutsLost, 'payouts missing').to.equal(0);
    expect(seconds, 'seconds from the fault to the first acknowledged write').to.be.at.most(TARGET_SECONDS);
    expect(gap, 'longest stretch without an acknowledged write').to.be.at.most(TARGET_SECONDS);
    if (onlyRetryAfter503) expect(count(0), 'no dropped connection in a switchover').to.equal(0);
  }

  /** The ledger balances, every payout is final with one event per state, every event reached the receiver under its id. */
  async function checkAfterwards(): Promise<void> {
    const invariants = await ledgerInvariants(db, [businessId]);
    expect(invariants.filter((i) => i.offenders.length).map((i) => `${i.name}: ${JSON.stringify(i.offenders).slice(0, 300)}`), 'ledger invariants').to.deep.equal([]);
    const sum = await db('ledger_entries').where({ business_id: businessId }).sum<{ sum: string | null }[]>('amount as sum');
    expect(Number(sum[0].sum ?? 0), 'money conserved: the entries sum to zero').to.equal(0);
    for (const id of bulkIds) {
      await until(async () => {
        const { counts } = (await get(`/bulk-payouts/${id}`, { token: tokens.core, baseUrl: services[0].url })).body;
        return counts.PENDING + counts.PROCESSING === 0;
      }, SETTLED_WITHIN_MS, `bulk payout ${id} to settle`);
    }
    const allPayouts: string[] = await db('payouts').where({ business_id: businessId }).pluck('id');
    expect(allPayouts, 'every acknowledged payout is there').to.include.members(payoutIds);
    await until(async () => (await db('payouts').whereIn('id', allPayouts).whereNotIn('status', ['COMPLETED', 'FAILED']).count<{ count: string }[]>('* as count'))[0].count === '0', SETTLED_WITHIN_MS, 'every payout to be final');
    const events: { id: string; code: string; data: { payout_id?: string } }[] = await db('outbox_events').where({ business_id: businessId }).whereIn('code', EVENTS).select('id', 'code', 'data');
    for (const id of allPayouts) {
      const codes = events.filter((e) => e.data.payout_id === id).map((e) => e.code).sort();
      expect([['payout.completed', 'payout.pending', 'payout.processing'], ['payout.failed', 'payout.pending', 'payout.processing']], `payout ${id}: one event per state`).to.deep.include(codes);
    }
    const undelivered = () => {
      const seen = new Set(receiver.received.map((r) => r.headers['webhook-id']));
      return events.filter((e) => !seen.has(e.id));
    };
    await until(() => undelivered().length === 0, SETTLED_WITHIN_MS, 'every event delivered').catch(async (err) => {
      // What became of them: their deliveries, and the queue's jobs.
      const missing = undelivered();
      const deliveries = await db('webhook_deliveries').whereIn('event_id', missing.map((e) => e.id)).select('event_id', 'status', 'attempt_count', 'last_status_code', 'last_error', 'next_attempt_at', 'created_at');
      const jobs = await db.raw('SELECT name, state, count(*)::int AS n FROM pgboss.job GROUP BY 1, 2 ORDER BY 1, 2');
      const outbox = await db('job_outbox').count<{ count: string }[]>('* as count');
      throw new Error(`${(err as Error).message}: ${missing.length} events not delivered ${JSON.stringify(missing.slice(0, 5))}; their deliveries ${JSON.stringify(deliveries.slice(0, 10))}; jobs ${JSON.stringify(jobs.rows)}; job outbox ${outbox[0].count} rows`);
    });
    console.log(`      afterwards: ledger invariants hold, ${allPayouts.length} payouts final with one event per state, ${events.length} events delivered (${receiver.received.length} deliveries)`);
  }

  /** Kills the leader's postmaster and waits until the other node leads; returns the old leader's name. */
  async function killLeader(): Promise<string> {
    const status = await clusterStatus(HA_DIR);
    expect(status.leader?.pid, JSON.stringify(status)).to.be.a('number');
    process.kill(status.leader!.pid!, 'SIGKILL');
    await until(async () => (await clusterStatus(HA_DIR)).leader?.name !== status.leader!.name, 60_000, 'another leader');
    return status.leader!.name;
  }

  /** A phase whose fault is the leader's kill; the old leader must be back as the synchronous standby. */
  async function killPhase(name: string): Promise<void> {
    let old = '';
    await phase(name, async () => {
      old = await killLeader();
    }, false);
    const status = await clusterStatus(HA_DIR);
    expect(status.replicas.filter((r) => r.role === 'sync_standby').map((r) => r.name), `the old primary is the synchronous standby: ${JSON.stringify(status)}`).to.deep.equal([old]);
    await checkAfterwards();
  }

  it('survives the kill of the leader: nothing acknowledged lost, nothing twice, no 500, and the old primary rejoins', () => killPhase('kill 1'));

  it('survives a second kill, of the new leader, the same way', () => killPhase('kill 2'));

  it('a planned switchover under load fails no request but with 503 and Retry-After', async () => {
    await phase('switchover', async () => {
      await switchover(HA_DIR);
    }, true);
    await checkAfterwards();
  });
});
