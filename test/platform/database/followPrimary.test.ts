/**
 * The service follows the primary (src/db/failover.ts), on a PostgreSQL of its own that
 * plays a failover's two faces without a cluster: every session of the service is cut
 * (`pg_terminate_backend`, as a dying primary cuts them), and the sessions opened after it
 * are read-only (`default_transaction_read_only`, as a connection that still reaches the
 * demoted former primary is: a write fails with SQLSTATE 25006).
 *
 * While it lasts: reads are answered; `/ready` is 503; a write without an Idempotency-Key
 * is answered 503 with Retry-After, never 500. A keyed fund sent meanwhile waits and
 * succeeds once the database takes writes again, with exactly one effect. After it no
 * connection to the read-only server is handed out again: ten writes without a key at
 * once all succeed.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../../src/db/embedded.js';
import { startService, type RunningService } from '../../../src/server.js';
import { expectProblem } from '../../support/assertions.js';
import { get, post, request } from '../../support/client.js';
import { testConfig } from '../../support/service.js';

describe('following the primary through a failover', function () {
  this.timeout(120_000);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-failover-'));
  let database: EmbeddedDatabase;
  let service: RunningService;
  let admin: Knex;
  let databaseName: string;

  before(async () => {
    chmodSync(dataDir, 0o755);
    database = await startEmbeddedPostgres(dataDir, { persistent: false, quiet: true });
    service = await startService(testConfig({ logFile: path.join(dataDir, 'service.log'), dbFailoverWaitMs: 5_000 }), { database: database.url, quiet: true });
    admin = knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 1 } });
    databaseName = (await admin.raw('SELECT current_database() AS name')).rows[0].name;
  });
  after(async () => {
    await admin?.destroy();
    await service?.close();
    await database?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** New sessions read-only (or not), and every session of the service cut. */
  async function demote(readOnly: boolean): Promise<void> {
    await admin.raw(readOnly ? `ALTER DATABASE "${databaseName}" SET default_transaction_read_only = on` : `ALTER DATABASE "${databaseName}" RESET default_transaction_read_only`);
    if (readOnly) await admin.raw('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = ?', ['client backend']);
  }

  it('reads go on, unkeyed writes are 503 with Retry-After, a keyed fund waits for the primary, and no read-only connection is kept', async () => {
    const baseUrl = service.url;
    const token = (await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' }, { baseUrl })).body.access_token;
    const wallet = (await post('/cl/v1/wallets', { name: 'failover' }, { token, baseUrl })).body.id;
    expect((await post('/cl/v1/testhelpers/topups', { amount: '1000.00' }, { token, baseUrl })).status).to.equal(201);
    expect((await get('/ready', { baseUrl })).status).to.equal(200);
    // Several connections in the pool, each used: the read-only ones below replace them.
    const reads = () => Promise.all(Array.from({ length: 10 }, () => get(`/cl/v1/wallets/${wallet}`, { token, baseUrl })));
    for (const res of await reads()) expect(res.status).to.equal(200);

    await demote(true);
    try {
      for (const res of await reads()) expect(res.status, 'a read on the read-only server').to.equal(200);
      expectProblem(await get('/ready', { baseUrl }), 503, 'SERVICE_UNAVAILABLE');
      const rename = await request('PATCH', `/cl/v1/wallets/${wallet}`, { body: { name: 'renamed' }, token, baseUrl });
      expectProblem(rename, 503, 'SERVICE_UNAVAILABLE');
      expect(Number(rename.headers.get('retry-after'))).to.be.greaterThan(0);
      const unkeyed = await post('/cl/v1/funds', { wallet_id: wallet, amount: '1.00' }, { token, baseUrl });
      expectProblem(unkeyed, 503, 'SERVICE_UNAVAILABLE');
      for (const res of await reads()) expect(res.status).to.equal(200);
    } catch (err) {
      await demote(false);
      throw err;
    }

    // A keyed fund sent while the server is read-only; the primary is back 700 ms later.
    const key = randomUUID();
    const sentAt = Date.now();
    const fund = post('/cl/v1/funds', { wallet_id: wallet, amount: '2.50' }, { token, baseUrl, idempotencyKey: key });
    await new Promise((r) => setTimeout(r, 700));
    await demote(false);
    const funded = await fund;
    expect(funded.status, JSON.stringify(funded.body)).to.equal(201);
    expect(Date.now() - sentAt, 'it waited for the primary').to.be.at.least(700);
    const again = await post('/cl/v1/funds', { wallet_id: wallet, amount: '2.50' }, { token, baseUrl, idempotencyKey: key });
    expect(again.status).to.equal(201);
    expect(again.body.id, 'the same fund replayed').to.equal(funded.body.id);
    expect((await get(`/cl/v1/wallets/${wallet}`, { token, baseUrl })).body.balance, 'one fund of 2.50; the refused ones had no effect').to.equal('2.50');

    const renames = await Promise.all(Array.from({ length: 10 }, (_, i) => request('PATCH', `/cl/v1/wallets/${wallet}`, { body: { name: `after ${i}` }, token, baseUrl })));
    expect(renames.map((r) => r.status), 'no read-only connection handed out').to.deep.equal(renames.map(() => 200));
    expect((await get('/ready', { baseUrl })).status).to.equal(200);
  });
});
