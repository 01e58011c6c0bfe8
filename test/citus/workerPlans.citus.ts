/**
 * On a real Citus cluster (run by `npm run test:citus`, scripts/citus-suite.ts): the kernel's
 * and the events' statements keep their plan on the worker that runs them
 * (docs/scale-out.md, "Statements a worker plans once"; their shape is checked on the SQL by
 * test/platform/database/cacheableStatements.test.ts). On the worker holding a business's
 * shards, one session calls the Idempotency-Key bracket and emits an event many times, each
 * call rolled back, while pg_stat_statements counts nested statements. PostgreSQL plans a
 * PL/pgSQL statement for its first five calls, then once generically and keeps that plan, which
 * Citus allows a fast-path statement only: any other is planned on every call. And Citus runs a
 * kept plan of a fast-path statement from the plan it cached for the shard, unless the
 * statement needs a function evaluated first (a volatile one, or now() in a write): then it
 * writes the values in as constants, deparses the statement for its shard and plans that, on
 * every call. So each watched statement is planned, and deparsed for its shard (DEPARSED), on
 * its first calls only. Checked to fail on the forms these functions had:
 * `IF NOT EXISTS (SELECT … FROM idempotency_keys …)` was planned on every call, and
 * `gen_random_uuid()` inside event_emit's INSERT deparsed on every call.
 */
import { expect } from 'chai';
import pg from 'pg';
import { newBusiness } from '../support/fixtures.js';
import { running } from '../support/service.js';

/** Calls per function: far more than the calls a statement is deparsed for when its plan is kept. */
const CALLS = 20;

/** Plans, and executions deparsed for the shard, of a kept statement: PostgreSQL's custom plans and its generic one, and a few of other sessions'. */
const AT_MOST = 10;

/** The statements watched: the function's statement and its shard's, as pg_stat_statements normalizes them. */
const WATCHED: Record<string, { statement: RegExp; shard: RegExp }> = {
  "idempotency_enter's read of the key": {
    statement: /FROM idempotency_keys WHERE scope = p_scope AND key = p_key AND business_id = p_business\)?\s*$/,
    shard: /^SELECT .* FROM public\.idempotency_keys_\d+ /,
  },
  "idempotency_leave's insert of the key": {
    statement: /^INSERT INTO idempotency_keys \(id, scope, key, business_id, request_hash, state, response_body,/,
    shard: /^INSERT INTO public\.idempotency_keys_\d+ /,
  },
  "event_emit's insert of the event": {
    statement: /^INSERT INTO outbox_events \(id, business_id, code, data, data_version, created_at\)/,
    shard: /^INSERT INTO public\.outbox_events_\d+ /,
  },
  "outbox_event_pending's insert of the pending row": {
    statement: /^INSERT INTO outbox_pending \(created_at, event_id, business_id\)/,
    shard: /^INSERT INTO public\.outbox_pending_\d+ /,
  },
};

/**
 * A shard's statement as Citus deparsed it: its uuids (the business's id among them) written
 * in as constants, which pg_stat_statements shows as `$n::uuid`; from a kept plan they are
 * parameters, a bare `$n`.
 */
const DEPARSED = /\$\d+::uuid\b/;

describe('Citus: the kernel’s and the events’ statements keep their plan on the worker', function () {
  let worker: pg.Client | undefined;
  before(function () {
    if (!process.env.CITUS_SUITE) this.skip();
  });
  after(() => worker?.end());

  it('deparses each watched statement for its shard on its first calls only, on the business’s worker', async () => {
    const db = running().db;
    const b = await newBusiness();
    await db.raw('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const { rows } = await db.raw(
      `SELECT n.nodename AS host, n.nodeport AS port FROM pg_dist_placement p JOIN pg_dist_node n ON n.groupid = p.groupid
        WHERE p.shardid = get_shard_id_for_distribution_column('idempotency_keys', ?::uuid)`,
      [b.id],
    );
    const url = new URL(process.env.DATABASE_URL!);
    url.hostname = rows[0].host;
    url.port = String(rows[0].port);
    worker = new pg.Client({ connectionString: url.toString() });
    await worker.connect();
    await worker.query("SET pg_stat_statements.track = 'all'");
    await worker.query('SET pg_stat_statements.track_planning = on');
    await worker.query('SELECT pg_stat_statements_reset()');
    for (let i = 0; i < CALLS; i++) {
      await worker.query('BEGIN');
      const entered = await worker.query(`SELECT idempotency_enter($1, $2, $3, 'hash', 60) AS r`, [b.id, b.id, `key-${i}`]);
      expect(entered.rows[0].r).to.deep.equal({ fresh: true });
      await worker.query(`SELECT idempotency_leave($1, $2, $3, 'hash', 60, true, '{}')`, [b.id, b.id, `key-${i}`]);
      await worker.query(`SELECT event_emit($1, 'probe.sent', '{}')`, [b.id]);
      await worker.query('ROLLBACK');
    }
    const { rows: stats } = await worker.query<{ query: string; calls: string; plans: string }>(
      `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS query, calls, plans FROM pg_stat_statements WHERE query ~ '(idempotency_keys|outbox_events|outbox_pending)'`,
    );
    const sum = (rows: typeof stats, of: 'calls' | 'plans') => rows.reduce((n, s) => n + Number(s[of]), 0);
    for (const [what, { statement, shard }] of Object.entries(WATCHED)) {
      const own = stats.filter((s) => statement.test(s.query));
      expect(sum(own, 'calls'), `${what}: calls (${JSON.stringify(stats)})`).to.be.at.least(CALLS);
      expect(sum(own, 'plans'), `${what}: plans over ${CALLS} calls`).to.be.at.most(AT_MOST);
      const deparsed = stats.filter((s) => shard.test(s.query) && DEPARSED.test(s.query));
      expect(sum(deparsed, 'calls'), `${what}: executions deparsed for the shard over ${CALLS} calls (${JSON.stringify(deparsed)})`)
        .to.be.at.least(1)
        .and.at.most(AT_MOST);
    }
  });
});
