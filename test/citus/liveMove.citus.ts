/**
 * A business moved to the other worker while it works (run by `npm run test:citus`): while
 * it sends transfers (each with an Idempotency-Key, retried on a 503 as a client would) and a
 * bulk payout is paid out, the business gets a shard group of its own
 * (`isolate_tenant_to_new_shard`, blocking writes while it splits: with logical replication the
 * split's subscriber stops on "publisher did not send replica identity column" on this Citus
 * 13.2 / PostgreSQL 15.18) which is then moved to the other worker by logical replication
 * (`citus_move_shard_placement`, every colocated shard with it).
 * Then: no answer but 2xx and a 503 with Retry-After; each transfer in the ledger exactly
 * once, a transfer refused 503 retried to its one effect; every payout of the bulk payout
 * final once; every ledger invariant of the business holds; its rows on the new node.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { post } from '../support/client.js';
import { activeCustomer } from '../support/customers.js';
import { fundedWallet } from '../support/fixtures.js';
import { assertLedgerConsistent } from '../support/ledgerInvariants.js';
import { bulkPayoutSettled, payoutBusiness, sendBulkPayout } from '../support/payouts.js';
import { running } from '../support/service.js';

/** A connection to the coordinator on which statements may span shards (the move's own). */
async function adminClient(): Promise<pg.Client> {
  const config = (running().db.client as { config: { connection: string | pg.ClientConfig } }).config.connection;
  const client = new pg.Client(typeof config === 'string' ? { connectionString: config } : config);
  await client.connect();
  await client.query("SET citus.multi_task_query_log_level = 'off'");
  return client;
}

/** The node (name, port) that holds business `businessId`'s shard of `table`, and the shard. */
async function placement(client: pg.Client, businessId: string): Promise<{ shard: string; host: string; port: number }> {
  const { rows } = await client.query(
    `SELECT p.shardid::text AS shard, n.nodename AS host, n.nodeport AS port
       FROM pg_dist_placement p JOIN pg_dist_node n ON n.groupid = p.groupid
      WHERE p.shardid = get_shard_id_for_distribution_column('accounts', $1::uuid)`,
    [businessId],
  );
  return rows[0];
}

describe('Citus: a business moved to another worker while it works', function () {
  this.timeout(300_000);
  before(function () {
    if (!process.env.CITUS_SUITE) this.skip();
  });

  it('loses and doubles nothing: transfers and a bulk payout go on, every payout final once', async () => {
    const { b } = await payoutBusiness('100000.00');
    const customers = [await activeCustomer(b), await activeCustomer(b)];
    const wallets = [await fundedWallet(b.token, '5000.00'), await fundedWallet(b.token, '5000.00')];
    const admin = await adminClient();
    try {
      const from = await placement(admin, b.id);
      const { rows: nodes } = await admin.query(`SELECT nodename AS host, nodeport AS port FROM pg_dist_node WHERE noderole = 'primary' AND groupid <> 0`);
      const to = nodes.find((n: { host: string; port: number }) => n.port !== from.port)!;

      const statuses: number[] = [];
      const sent: string[] = [];
      let moving = true;
      /** A transfer as a careful client sends it: one key, retried while the answer is 503 or 409 IN_USE. */
      const transfer = async (i: number) => {
        const reference = `move-${i}-${randomUUID()}`;
        const key = randomUUID();
        for (let attempt = 0; attempt < 40; attempt++) {
          const res = await post(
            '/cl/v1/transfers',
            { source_wallet_id: wallets[i % 2].id, destination_wallet_id: wallets[(i + 1) % 2].id, amount: '1.00', external_reference: reference },
            { token: b.token, headers: { 'Idempotency-Key': key } },
          );
          statuses.push(res.status);
          if (res.status === 503) expect(res.headers.get('retry-after'), 'a 503 says when to retry').to.match(/^\d+$/);
          if (res.status === 201) {
            sent.push(reference);
            return;
          }
          expect([503, 409], JSON.stringify(res.body)).to.include(res.status);
          await new Promise((r) => setTimeout(r, 200));
        }
        throw new Error(`transfer ${reference} not accepted after 40 tries`);
      };
      const load = (async () => {
        let i = 0;
        while (moving) await Promise.all([transfer(i++), transfer(i++), transfer(i++)]);
      })();
      const bulk = await sendBulkPayout(
        b,
        Array.from({ length: 40 }, (_, i) => ({ customer_id: customers[i % 2].id, payout_amount: '2.00', external_reference: `move-item-${i}` })),
      );
      expect(bulk.status, JSON.stringify(bulk.body)).to.equal(200);

      // A shard group of its own for the business, then that group moved to the other worker.
      const { rows: isolated } = await admin.query(
        `SELECT isolate_tenant_to_new_shard('accounts', $1::uuid, 'CASCADE', shard_transfer_mode => 'block_writes')::text AS shard`,
        [b.id],
      );
      const own = await placement(admin, b.id);
      expect(own.shard, 'the business has a shard of its own').to.equal(isolated[0].shard).and.not.equal(from.shard);
      await admin.query(`SELECT citus_move_shard_placement($1::bigint, $2, $3, $4, $5, shard_transfer_mode => 'force_logical')`, [
        own.shard,
        own.host,
        own.port,
        to.host,
        to.port,
      ]);
      await new Promise((r) => setTimeout(r, 1000));
      moving = false;
      await load;
      const count = (status: number) => statuses.filter((s) => s === status).length;
      console.log(`      ${sent.length} transfers during the isolation and the move: ${count(201)} × 201, ${count(503)} × 503, ${count(409)} × 409`);

      expect((await placement(admin, b.id)).port, 'the business is on the other worker').to.equal(to.port);
      expect(statuses.filter((s) => s !== 201 && s !== 503 && s !== 409), 'answers besides 201, 503 and 409').to.deep.equal([]);
      expect(sent.length).to.be.greaterThan(10);
      const { rows } = await running().db.raw(
        `SELECT external_reference, count(*)::int AS n FROM transactions
          WHERE business_id = ? AND type = 'TRANSFER' AND external_reference LIKE 'move-%' GROUP BY external_reference`,
        [b.id],
      );
      const counted = new Map(rows.map((r: { external_reference: string; n: number }) => [r.external_reference, r.n]));
      expect(sent.filter((ref) => counted.get(ref) !== 1), 'transfers not in the ledger exactly once').to.deep.equal([]);
      expect(counted.size, 'transfers in the ledger that no client was answered').to.equal(sent.length);

      const settled = await bulkPayoutSettled(b, bulk.body.bulk_payout_id, 60_000);
      expect(settled.counts.COMPLETED).to.equal(40);
      await assertLedgerConsistent(running().db, b.id);
    } finally {
      await admin.end();
    }
  });
});
