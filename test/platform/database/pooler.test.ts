/**
 * The service behind pgbouncer in transaction pooling mode (Debian's pgbouncer 1.18,
 * which does not follow named prepared statements from one server connection to the
 * next), with DB_PREPARED_STATEMENTS=false: the README quickstart, a customer payout
 * settled by the job queue (pg-boss, through the same pooler), and a concurrent money
 * run, with no 5xx. The test runs its own pgbouncer on a free loopback port in front
 * of the suite's PostgreSQL, on a database of its own.
 *
 * pgbouncer is needed: `apt-get install -y pgbouncer` (.ci/run installs it). Without
 * it the test is skipped with a message, except under CI=true, where it fails.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { RunningService } from '../../../src/server.js';
import { get, post, type ApiResponse } from '../../support/client.js';
import { activeCustomer } from '../../support/customers.js';
import { pgbouncerBinary, startPgbouncer, type Pgbouncer } from '../../support/pgbouncer.js';
import { precompiledApiDir, running, testConfig } from '../../support/service.js';
import { startService } from '../../../src/server.js';

const WORKERS = 16;
const OPERATIONS = 600;

describe('behind pgbouncer in transaction pooling mode (DB_PREPARED_STATEMENTS=false)', function () {
  this.timeout(180_000);
  const database = `wallet_pooler_${randomUUID().slice(0, 8)}`;
  let pooler: Pgbouncer | undefined;
  let service: RunningService | undefined;
  let baseUrl = '';

  before(async function () {
    const binary = pgbouncerBinary();
    if (!binary) {
      if (process.env.CI === 'true') throw new Error('pgbouncer is required under CI=true (apt-get install -y pgbouncer; .ci/run installs it)');
      console.log('      SKIPPED: pgbouncer is not installed. Install it with `apt-get install -y pgbouncer` to run this test (CI=true makes it mandatory).');
      this.skip();
    }
    await running().db.raw(`CREATE DATABASE ${database}`);
    pooler = await startPgbouncer(binary, running().databaseUrl.replace(/\/[^/]*$/, `/${database}`));
    service = await startService(testConfig({ dbPreparedStatements: false }), { database: pooler.url, quiet: true, apiDir: precompiledApiDir() });
    baseUrl = service.url;
  });

  after(async () => {
    await service?.close();
    await pooler?.stop();
    await running().db.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  it('runs the README quickstart, and a payout to a customer settles through the job queue', async () => {
    const login = await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' }, { baseUrl });
    expect(login.status).to.equal(200);
    const token = login.body.access_token;
    const call = { token, baseUrl };
    const label = await post('/cl/v1/labels', { name: `customers-${randomUUID().slice(0, 8)}` }, call);
    expect(label.status).to.equal(201);
    const w1 = (await post('/cl/v1/wallets', { name: 'Ahmed', label_id: label.body.id }, call)).body;
    const w2 = (await post('/cl/v1/wallets', { name: 'Sara', label_id: label.body.id }, call)).body;
    expect((await get(`/cl/v1/wallets/${w1.id}`, call)).body.balance).to.equal('0.00');
    expect((await post('/cl/v1/testhelpers/topups', { amount: '1000.00' }, call)).status).to.equal(201);
    expect((await post('/cl/v1/funds', { wallet_id: w1.id, amount: '200.00' }, { ...call, idempotencyKey: `fund-${w1.id}` })).status).to.equal(201);
    expect((await post('/cl/v1/transfers', { source_wallet_id: w1.id, destination_wallet_id: w2.id, amount: '50.00' }, call)).status).to.equal(201);
    const payout = await post('/cl/v1/payouts', { wallet_id: w2.id, amount: '300.00' }, call);
    expect(payout.status).to.equal(201);
    const refunds = [];
    for (const [n, amount] of [[1, '100.00'], [2, '50.00']] as const) {
      const refund = await post('/cl/v1/refunds', { original_transaction_id: payout.body.id, amount }, { ...call, idempotencyKey: `refund-${n}-${payout.body.id}` });
      expect(refund.status, JSON.stringify(refund.body)).to.equal(201);
      refunds.push(refund.body.total_refunded_amount);
    }
    expect(refunds).to.deep.equal(['100.00', '150.00']);
    const statement = await get(`/cl/v1/wallets/${w2.id}/statement`, call);
    expect(statement.body.closing_balance).to.equal('200.00');
    expect((await get(`/cl/v1/wallets/${w2.id}/statement.csv`, call)).status).to.equal(200);

    // The core API's payout: PENDING, then the job queue's steps through the pooler.
    const customer = await activeCustomer({ token, baseUrl });
    expect((await post('/testhelpers/payout-account/topups', { amount: '100.00' }, call)).status).to.equal(201);
    const created = await post('/payouts/', { payout_amount: '25.00', payout_purpose: 'Cashback', external_reference: 'pooler', mobileNumber: customer.mobile_number }, {
      ...call,
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    const deadline = Date.now() + 30_000;
    let status = created.body.status;
    while (status !== 'COMPLETED' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      status = (await get(`/payouts/${created.body.payout_id}`, call)).body.status;
    }
    expect(status).to.equal('COMPLETED');
  });

  it(`answers a concurrent money run (${OPERATIONS} requests, ${WORKERS} at a time) with no 5xx`, async () => {
    const platform = (await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: 'sandbox-platform', client_secret: 'sandbox-platform-secret' }, { baseUrl })).body.access_token;
    const business = await post('/cl/v1/businesses', { name: 'Pooler load' }, { token: platform, baseUrl });
    const { client_id, client_secret } = business.body.credentials;
    const token = (await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id, client_secret }, { baseUrl })).body.access_token;
    const call = { token, baseUrl };
    expect((await post('/cl/v1/testhelpers/topups', { amount: '100000.00' }, call)).status).to.equal(201);
    const wallets: string[] = [];
    for (let i = 0; i < 8; i++) wallets.push((await post('/cl/v1/wallets', { name: `pooler ${i}` }, call)).body.id);

    let next = 0;
    const statuses = new Map<string, number>();
    const worker = async (): Promise<void> => {
      for (let n = next++; n < OPERATIONS; n = next++) {
        const wallet = wallets[Math.floor(n / 4) % wallets.length];
        let res: ApiResponse;
        switch (n % 4) {
          case 0:
            res = await post('/cl/v1/funds', { wallet_id: wallet, amount: '10.00' }, { ...call, idempotencyKey: randomUUID() });
            break;
          case 1:
            res = await post('/cl/v1/transfers', { source_wallet_id: wallet, destination_wallet_id: wallets[(Math.floor(n / 4) + 1) % wallets.length], amount: '1.00' }, call);
            break;
          case 2:
            res = await get(`/cl/v1/wallets/${wallet}/balance`, call);
            break;
          default:
            res = await get(`/cl/v1/wallets/${wallet}/transactions?limit=5`, call);
        }
        const key = `${res.status}${res.status >= 400 ? ` ${res.body?.code}` : ''}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
    console.log(`      ${OPERATIONS} requests through pgbouncer: ${[...statuses].map(([k, n]) => `${n} × ${k}`).join(', ')}`);
    expect([...statuses.keys()].filter((k) => Number(k.slice(0, 3)) >= 500), 'no 5xx').to.deep.equal([]);
    // Transfers may meet a wallet not funded yet (422 INSUFFICIENT_FUNDS); nothing else fails.
    expect([...statuses.keys()].filter((k) => !/^(200|201|422 INSUFFICIENT_FUNDS)$/.test(k))).to.deep.equal([]);
  });
});
