/**
 * The job queue's upgrade from pg-boss 10 (src/jobs/pgboss10.ts): on a database whose
 * `pgboss` schema pg-boss 10 created (test/support/pgboss10.sql) and holding jobs in every
 * state, the job queue starts on pg-boss 12, runs each job that was still to run (created,
 * deferred, waiting for a retry, active when its process stopped) exactly as a handler of
 * the new release, runs none that had finished, and leaves no trace of the old schema; a
 * second start finds nothing to do.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import knex from 'knex';
import pg from 'pg';
import { JobQueue } from '../../../src/jobs/queue.js';
import { createLogger } from '../../../src/log.js';
import { running } from '../../support/service.js';

const QUEUE = 'upgrade-probe';

describe('job queue: upgrade from a pg-boss 10 schema', function () {
  this.timeout(120_000);
  const name = `pgboss10_${randomUUID().slice(0, 8)}`;
  let url: string;
  let client: pg.Client;
  let queue: JobQueue | undefined;
  let db: knex.Knex | undefined;
  /** The database's knex, as the service's (the job outbox's hand-off and sweep). */
  const service = (): knex.Knex => (db ??= knex({ client: 'pg', connection: url, pool: { min: 0, max: 2 } }));

  before(async () => {
    await running().db.raw(`CREATE DATABASE ${name}`);
    url = running().databaseUrl.replace(/\/[^/]*$/, `/${name}`);
    client = new pg.Client({ connectionString: url });
    await client.connect();
  });
  after(async () => {
    await queue?.stop();
    await db?.destroy();
    await client?.end();
    await running().db.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  /** Starts the job queue with a worker for QUEUE that records each job's `n`. */
  async function start(seen: number[]): Promise<JobQueue> {
    const jobs = await JobQueue.start({ databaseUrl: url, db: service(), log: createLogger({ level: 'silent' }), pollingIntervalSeconds: 0.5 });
    await jobs.defineQueue<{ n: number }>({
      name: QUEUE,
      concurrency: 1,
      retryLimit: 2,
      retryDelaySeconds: 1,
      expireInSeconds: 60,
      handler: async ({ n }) => {
        seen.push(n);
      },
    });
    return jobs;
  }

  it('carries the jobs still to run over to pg-boss 12, runs them once, drops the old schema', async () => {
    await client.query(readFileSync(new URL('../../support/pgboss10.sql', import.meta.url), 'utf8'));
    await client.query(`SELECT pgboss.create_queue($1, $2)`, [QUEUE, JSON.stringify({ policy: 'standard', retryLimit: 2, retryDelay: 1, expireInSeconds: 60 })]);
    const insert = (n: number, state: string, startAfter: string) =>
      client.query(
        `INSERT INTO pgboss.job (name, data, state, start_after, started_on, retry_limit, retry_delay, expire_in)
         VALUES ($1, $2, $3::pgboss.job_state, now() + $4::interval, CASE WHEN $3::text = 'active' THEN now() - interval '5 seconds' END, 2, 1, interval '60 seconds')`,
        [QUEUE, { n }, state, startAfter],
      );
    await insert(1, 'created', '0 s');
    await insert(2, 'created', '3 s'); // deferred
    await insert(3, 'retry', '0 s');
    await insert(4, 'active', '-5 s'); // its process stopped for the upgrade
    await insert(5, 'completed', '-10 s');
    await insert(6, 'failed', '-10 s');
    await insert(7, 'cancelled', '-10 s');

    const seen: number[] = [];
    const started = Date.now();
    queue = await start(seen);
    while (seen.length < 4 && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 200));
    await new Promise((r) => setTimeout(r, 1_500)); // a job run twice, or a finished one, would show by now
    expect([...seen].sort()).to.deep.equal([1, 2, 3, 4]);
    expect(seen.indexOf(2), 'the deferred job runs after the others').to.equal(3);

    const schemas = (await client.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'pgboss%' ORDER BY 1`)).rows.map((r) => r.nspname);
    expect(schemas).to.deep.equal(['pgboss']);
    const { version } = (await client.query('SELECT max(version) AS version FROM pgboss.version')).rows[0];
    const pgBossPackage = JSON.parse(readFileSync(new URL('../../../node_modules/pg-boss/package.json', import.meta.url), 'utf8'));
    expect(version).to.equal(pgBossPackage.pgboss.schema);
    expect(pgBossPackage.version).to.match(/^12\./);

    // A second start (or another instance) on the upgraded database finds nothing to carry over.
    await queue.stop();
    queue = undefined;
    const again: number[] = [];
    queue = await start(again);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(again).to.deep.equal([]);
  });
});
