/**
 * The service's database distributed by business on a real Citus cluster (run by
 * `npm run test:citus`, scripts/citus-suite.ts, which migrates the database with `npm start`
 * and distributes it with `npm run db:distribute` before mocha starts the service on it):
 *   - every table is placed by its class and every function distributed (src/db/distribution.ts);
 *   - a business's rows of every tenant table are on one node;
 *   - a start that re-creates changed SQL definitions keeps them distributed, the ledger's
 *     delegated to the business's node;
 *   - a movement of the ledger is one call delegated to one worker;
 *   - a business's movements and payouts (the payout's job included) commit on one node,
 *     with no two-phase commit; creating a business, which writes the reference tables, does;
 *   - a statement split over several shards fails (the suite's setting), so that every flow
 *     the suite runs shows that each of its statements was served by one node.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import type pg from 'pg';
import { check, COLOCATION_ANCHOR, tenantTables } from '../../src/db/distribution.js';
import { applySqlDefinitions, sqlDefinitions } from '../../src/db/sqlFunctions.js';
import { credit, fundedWallet, newBusiness, newWallet, topup } from '../support/fixtures.js';
import { bulkPayoutSettled, payoutBusiness, sendBulkPayout, sendPayout } from '../support/payouts.js';
import { post } from '../support/client.js';
import { running } from '../support/service.js';
import { startReceiver, testSecret, type Receiver } from '../support/webhooks.js';

const order = () => sqlDefinitions().flatMap((d) => d.functions);

/** Runs `work` on one connection of the service's pool. */
async function onConnection<T>(db: Knex, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const pool = db.client as { acquireConnection(): Promise<pg.Client>; releaseConnection(c: pg.Client): Promise<void> };
  const connection = await pool.acquireConnection();
  try {
    return await work(connection);
  } finally {
    await pool.releaseConnection(connection);
  }
}

describe('Citus: the schema distributed by business', function () {
  const receivers: Receiver[] = [];
  after(() => Promise.all(receivers.map((r) => r.close())));
  before(function () {
    if (!process.env.CITUS_SUITE) this.skip();
  });

  it('places every table by its class and distributes every function (the check of npm run db:distribute)', async () => {
    await onConnection(running().db, (c) => check(c, order()));
  });

  it("keeps a business's rows of every tenant table on one node", async () => {
    const b = await newBusiness();
    await fundedWallet(b.token, '10.00');
    const db = running().db;
    const tables = tenantTables((await db.raw(`SELECT relname FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind = 'r'`)).rows.map((r: { relname: string }) => r.relname));
    const { rows } = await db.raw(
      `SELECT count(DISTINCT p.groupid)::int AS nodes, count(*)::int AS shards
         FROM unnest(?::text[]) t(name)
         JOIN pg_dist_placement p ON p.shardid = get_shard_id_for_distribution_column(t.name::regclass, ?::uuid)`,
      [tables, b.id],
    );
    expect(rows[0].shards).to.equal(tables.length);
    expect(rows[0].nodes).to.equal(1);
  });

  it('a start that applies a changed SQL definition keeps its functions delegated to the business’s node', async () => {
    const db = running().db;
    await db('sql_definitions').where({ name: 'ledger/sql/ledger_post.sql' }).update({ sha256: 'changed' });
    expect(await applySqlDefinitions(db)).to.include('ledger/sql/ledger_post.sql');
    const { rows } = await db.raw(
      `SELECT distribution_argument_index AS argument, force_delegation AS forced, colocationid = (SELECT colocationid FROM pg_dist_partition WHERE logicalrelid = ?::regclass) AS colocated
         FROM pg_dist_object WHERE objid = 'ledger_post'::regproc`,
      [COLOCATION_ANCHOR],
    );
    expect(rows).to.deep.equal([{ argument: 0, forced: true, colocated: true }]);
    await onConnection(db, (c) => check(c, order()));
  });

  it('a transfer is one delegated call: the business’s node runs the ledger function', async () => {
    const b = await newBusiness();
    const from = await fundedWallet(b.token, '10.00');
    const to = await newWallet(b.token);
    const db = running().db;
    const { rows } = await db.raw(`EXPLAIN (VERBOSE) SELECT ledger_move(?::uuid, 'TRANSFER', ?::jsonb)`, [
      b.id,
      JSON.stringify({ source_wallet_id: from.id, destination_wallet_id: to.id, amount: '1.00' }),
    ]);
    const plan = rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
    expect(plan).to.match(/Task Count: 1/);
    const res = await post('/cl/v1/transfers', { source_wallet_id: from.id, destination_wallet_id: to.id, amount: '1.00' }, { token: b.token });
    expect(res.status).to.equal(201);
  });

  it('commits a business’s movements and payouts on one node: no two-phase commit; a new business takes one', async () => {
    const db = running().db;
    // Citus records each two-phase commit in pg_dist_transaction until its recovery (every
    // citus.recover_2pc_interval) removes the record: recovery is paused while counting.
    await db.raw('ALTER SYSTEM SET citus.recover_2pc_interval = -1');
    await db.raw('SELECT pg_reload_conf()');
    const twoPhase = async () => Number((await db.raw('SELECT count(*) AS n FROM pg_dist_transaction')).rows[0].n);
    try {
      const { b, customer } = await payoutBusiness('100.00');
      const from = await fundedWallet(b.token, '10.00');
      const to = await newWallet(b.token);
      await topup(b.token, '5.00');
      const receiver = await startReceiver();
      receivers.push(receiver);
      const events = ['payout.pending', 'payout.processing', 'payout.completed'];
      expect((await post('/cl/v1/webhooks/endpoints', { url: receiver.url, secret: testSecret(), events }, { token: b.token })).status).to.equal(200);
      const before = await twoPhase();
      expect((await post('/cl/v1/transfers', { source_wallet_id: from.id, destination_wallet_id: to.id, amount: '1.00' }, { token: b.token })).status).to.equal(201);
      await credit(b.token, to.id, '1.00');
      expect((await sendPayout(b, { payout_amount: '1.00', payout_purpose: 'Cashback', customer_id: customer.id })).status).to.equal(200);
      const bulk = await sendBulkPayout(b, [{ payout_amount: '1.00', customer_id: customer.id }, { payout_amount: '0.00', customer_id: customer.id }]);
      expect(bulk.status).to.equal(200);
      // The payouts' jobs run meanwhile (submission, settlement, their events' relay and deliveries).
      await bulkPayoutSettled(b, bulk.body.bulk_payout_id);
      await receiver.waitFor(6, 20_000);
      expect(await twoPhase(), 'two-phase commits of one business’s requests and jobs').to.equal(before);
      await newBusiness();
      expect(await twoPhase(), 'a new business writes the reference tables on every node').to.be.above(before);
    } finally {
      await db.raw('ALTER SYSTEM RESET citus.recover_2pc_interval');
      await db.raw('SELECT pg_reload_conf()');
    }
  });

  it('refuses a statement split over several shards on the service’s connections', async () => {
    let error: unknown;
    try {
      await running().db.raw('SELECT count(*) FROM accounts');
    } catch (err) {
      error = err;
    }
    expect(String(error)).to.match(/multi-task query/);
  });
});
