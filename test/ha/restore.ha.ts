/**
 * The restore drill (`npm run test:ha`, scripts/ha-suite.ts; HA_DIR names the cluster): a base
 * backup with pgBackRest, ten keyed funds, the target time, ten more, the WAL archived; the
 * backup restored to the target into a PostgreSQL of its own (scripts/ha/backup.ts) and a
 * service process started on it. The copy holds exactly the ten funds before the target, none
 * after it, its ledger's invariants hold, and the service serves it (ready, and a new fund).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import { archiveNow, backup, dropRestored, restoreTo } from '../../scripts/ha/backup.js';
import { freePort } from '../../src/db/embedded.js';
import { get, post } from '../support/client.js';
import { ledgerInvariants } from '../support/ledgerInvariants.js';
import { killServiceProcess, startServiceProcess, type ServiceProcess } from '../support/property/processes.js';
import { running, testKeysEnv } from '../support/service.js';

const HA_DIR = process.env.HA_DIR ?? '';
const FUNDS = 10;

describe('restoring a backup to a point in time', function () {
  this.timeout(600_000);
  const into = mkdtempSync(path.join(tmpdir(), 'wallet-restored-'));
  let restored: Knex | undefined;
  let service: ServiceProcess | undefined;

  before(function () {
    if (!HA_DIR) this.skip();
  });
  after(async () => {
    if (service) await killServiceProcess(service);
    await restored?.destroy();
    await dropRestored(into);
    rmSync(into, { recursive: true, force: true });
  });

  it('recovers exactly the writes before the target, with the ledger whole, and the service runs on it', async () => {
    const login = await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' });
    const token = login.body.access_token;
    const wallet = (await post('/cl/v1/wallets', { name: 'restore drill' }, { token })).body.id;
    expect((await post('/cl/v1/testhelpers/topups', { amount: '1000.00' }, { token })).status).to.equal(201);
    const label = backup(HA_DIR);
    const funds = async (batch: string) => {
      for (let i = 0; i < FUNDS; i++) {
        const res = await post('/cl/v1/funds', { wallet_id: wallet, amount: '1.00', external_reference: `${batch}-${i}` }, { token, idempotencyKey: randomUUID() });
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
      }
    };
    const batch = randomUUID().slice(0, 8);
    await funds(`before-${batch}`);
    await new Promise((r) => setTimeout(r, 1_000));
    // The target on the database's clock (the cluster's machine is this one).
    const target: string = (await running().db.raw("SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00' AS t")).rows[0].t;
    await new Promise((r) => setTimeout(r, 1_000));
    await funds(`after-${batch}`);
    archiveNow(HA_DIR);

    const url = await restoreTo(HA_DIR, target, into, await freePort());
    restored = knex({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
    const count = async (prefix: string) =>
      Number((await restored!('transactions').where('external_reference', 'like', `${prefix}-%`).count<{ count: string }[]>('* as count'))[0].count);
    const before = await count(`before-${batch}`);
    const afterTarget = await count(`after-${batch}`);
    const businessId = (await restored('api_clients').where({ client_id: 'demo-business' }).first('business_id')).business_id;
    const invariants = await ledgerInvariants(restored, [businessId]);
    console.log(`      restore: backup ${label}, target ${target}: ${before} of ${FUNDS} funds before it, ${afterTarget} of ${FUNDS} after it; ledger invariants ${invariants.every((i) => !i.offenders.length) ? 'hold' : 'FAIL'}`);
    expect(before, 'every fund before the target').to.equal(FUNDS);
    expect(afterTarget, 'no fund after the target').to.equal(0);
    expect(invariants.filter((i) => i.offenders.length).map((i) => i.name)).to.deep.equal([]);

    service = await startServiceProcess(url, undefined, testKeysEnv());
    expect((await get('/ready', { baseUrl: service.url })).status).to.equal(200);
    const again = (await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' }, { baseUrl: service.url })).body.access_token;
    expect((await get(`/cl/v1/wallets/${wallet}`, { token: again, baseUrl: service.url })).body.balance, 'the funds before the target').to.equal(`${FUNDS}.00`);
    expect((await post('/cl/v1/funds', { wallet_id: wallet, amount: '1.00' }, { token: again, baseUrl: service.url, idempotencyKey: randomUUID() })).status).to.equal(201);
  });
});
