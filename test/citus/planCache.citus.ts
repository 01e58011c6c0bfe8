/**
 * Citus's local plan cache on a real cluster (run by `npm run test:citus`): a worker that
 * runs a business's ledger functions plans each of their statements once per shard and then
 * reuses that plan, so a long-lived worker connection neither re-plans nor grows.
 *
 * Why it is a test: Citus 13.2.1 and 13.2.2 (also 12.1.11-12, 14.0.0-14.0.1) carry a check in
 * `GetCachedLocalPlan` that a plan with deferred pruning never passes (upstream PR #8371; the
 * fix is PR #8824). There, every statement inside a delegated function is deparsed, parsed
 * and planned again on every call, and each new plan is appended to the cached plan and kept
 * until the connection ends (`citus.max_cached_connection_lifetime`, 10 minutes): a worker
 * backend grows by hundreds of kB per movement. scripts/citus/install.sh builds Citus with
 * the check relaxed; on a stock 13.2.2 the memory assertion below fails.
 *
 * How: on one connection straight to the worker that holds the business's shards (a warm
 * worker session, as the coordinator's cached connection is), movements through the ledger's
 * own entry point (`move`, src/ledger/ledger.ts) past PostgreSQL's switch to a generic plan
 * (after five custom plans), then 50 more, measuring between them:
 *   - that the shards' statements ran in this backend (pg_stat_statements with `track = all`
 *     for this session), so that the run is local execution, where the cache applies;
 *   - the backend's cached-plan memory (`pg_backend_memory_contexts`, the CachedPlan
 *     contexts, where Citus keeps its local plans next to the generic plan of the statement),
 *     which must not grow: Citus appends a local plan there each time it plans a statement's
 *     shard query, so memory that stays flat is plans reused. On a stock 13.2.2 it gains
 *     tens of MB over the 50 movements.
 * (pg_stat_statements cannot count the re-planning itself: Citus plans the shard query
 * without a query text, which the extension's planner hook skips.)
 */
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { move } from '../../src/ledger/ledger.js';
import { fundedWallet, newBusiness, newWallet } from '../support/fixtures.js';
import { running } from '../support/service.js';

/** Movements measured after the warm-up, and the memory the CachedPlan contexts may gain over them. */
const MOVEMENTS = 50;
const MAX_GROWTH_BYTES = 256 * 1024;

/** The connection string of the worker that holds business `businessId`'s shards. */
async function workerUrl(businessId: string): Promise<string> {
  const { rows } = await running().db.raw(
    `SELECT n.nodename AS host, n.nodeport AS port FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid)
      WHERE p.shardid = get_shard_id_for_distribution_column('accounts', ?::uuid)`,
    [businessId],
  );
  const url = new URL(process.env.DATABASE_URL!);
  url.hostname = rows[0].host;
  url.port = String(rows[0].port);
  return url.toString();
}

/** The CachedPlan contexts' bytes of the session, and its shard statements' runs so far. */
async function sample(worker: Knex): Promise<{ cachedPlanBytes: number; calls: number }> {
  const memory = await worker.raw(
    `SELECT coalesce(sum(total_bytes), 0)::bigint AS bytes FROM pg_backend_memory_contexts WHERE name IN ('CachedPlan', 'CachedPlanQuery', 'CachedPlanSource')`,
  );
  // A shard's table is named after its table with the shard id: accounts_102008.
  const stats = await worker.raw(
    `SELECT coalesce(sum(calls), 0)::bigint AS calls FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND query ~ '(accounts|ledger_entries|transactions)_[0-9]{5,}'`,
  );
  return { cachedPlanBytes: Number(memory.rows[0].bytes), calls: Number(stats.rows[0].calls) };
}

describe('Citus: the local plan cache of a worker', function () {
  let worker: Knex | undefined;
  before(function () {
    if (!process.env.CITUS_SUITE) this.skip();
  });
  after(() => worker?.destroy());

  it(`reuses its plans: ${MOVEMENTS} movements on a warm worker session keep no new local plans`, async function () {
    this.timeout(120_000);
    // Created on the coordinator, which propagates it to the workers.
    await running().db.raw('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const b = await newBusiness();
    const from = await fundedWallet(b.token, '100.00');
    const to = await newWallet(b.token);
    // One connection, so that every movement runs in the same backend, as a cached connection's do.
    worker = knexFactory({ client: 'pg', connection: await workerUrl(b.id), pool: { min: 1, max: 1 } });
    await worker.raw("SET pg_stat_statements.track = 'all'");
    const transfer = (i: number) =>
      move(worker!, b.id, 'TRANSFER', { source_wallet_id: i % 2 ? to.id : from.id, destination_wallet_id: i % 2 ? from.id : to.id, amount: '0.01' });
    for (let i = 0; i < 20; i++) await transfer(i);
    const before = await sample(worker);
    for (let i = 0; i < MOVEMENTS; i++) await transfer(i);
    const after = await sample(worker);

    const growth = after.cachedPlanBytes - before.cachedPlanBytes;
    const calls = after.calls - before.calls;
    const seen = `(${growth} bytes gained over ${calls} runs of the shards' statements)`;
    expect(calls, `the shards’ statements ran on this worker ${seen}`).to.be.at.least(MOVEMENTS);
    expect(growth, `cached-plan memory gained over ${MOVEMENTS} movements ${seen}`).to.be.at.most(MAX_GROWTH_BYTES);
  });
});
