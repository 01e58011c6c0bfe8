/**
 * An instance killed with SIGKILL in the middle of the property load: two
 * service processes (src/main.ts) on one embedded PostgreSQL owned by this test; one is
 * killed while requests to it are in flight, the load goes on against the other, the
 * killed one is restarted on the same database and rejoins. Afterwards every acknowledged
 * transaction is in the database and readable, a request whose connection dropped made at
 * most one transaction, and the ledger invariants hold. Replay with PROPERTY_SEED=<seed>.
 */
import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import { Progress } from '../../support/property/load.js';
import { killServiceProcess, startDatabase, startServiceProcess, type Database, type ServiceProcess } from '../../support/property/processes.js';
import { seedFrom } from '../../support/property/random.js';
import { allViolations, checkProperty, formatReport, runProperty } from '../../support/property/run.js';
import { Instances } from '../../support/property/transport.js';

const OPERATIONS = Number(process.env.PROPERTY_KILL_OPERATIONS ?? 2_000);
const CONCURRENCY = 24;

/** Waits until `condition` holds; fails after `ms` or as soon as `failed()` says why. */
async function waitFor(condition: () => boolean, ms: number, what: string, failed: () => unknown): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (failed()) throw failed();
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('an instance killed with SIGKILL in the middle of the load', function () {
  this.timeout(900_000);
  let database: Database | undefined;
  let db: Knex | undefined;
  const services: ServiceProcess[] = [];

  before(async () => {
    database = await startDatabase();
    db = knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 4 } });
    // One after the other: the first applies the migrations.
    services.push(await startServiceProcess(database.url));
    services.push(await startServiceProcess(database.url));
  });

  after(async () => {
    await Promise.all(services.map((s) => killServiceProcess(s)));
    await db?.destroy();
    await database?.stop();
  });

  it('loses no acknowledged transaction and leaves the ledger balanced once restarted', async () => {
    const seed = seedFrom(process.env.PROPERTY_SEED);
    console.log(`      property seed ${seed} (replay with PROPERTY_SEED=${seed})`);
    const [victim, survivor] = services;
    const instances = new Instances([victim.url, survivor.url]);
    const progress = new Progress();
    progress.hold(Math.floor(OPERATIONS * 0.8)); // the last fifth waits for the restarted instance
    let loadError: unknown;
    const load = runProperty(instances, { seed, operations: OPERATIONS, concurrency: CONCURRENCY, businesses: 3, walletsPerBusiness: 6, overdraftWallets: 2, deadlineMs: 600_000 }, progress);
    load.catch((err) => (loadError = err ?? new Error('load failed')));
    void survivor.exited.then(({ code, signal }) => progress.stop(`the survivor exited (code ${code}, signal ${signal}): ${survivor.output()}`));

    // Kill once a third of the load has started, while requests to the victim are being served.
    // A client slower than the server (this process also checks every response) may count as
    // "in flight" requests already answered, so hold the operational accounts' rows for half a
    // second first: funds, payouts, top-ups and withdrawals sent meanwhile wait inside the
    // servers, and the victim dies with some of them open.
    await waitFor(() => progress.started >= OPERATIONS / 3 && instances.inFlight(victim.url) >= 3, 600_000, 'the kill point', () => loadError);
    const holder = await db!.transaction();
    await holder.raw("SELECT id FROM accounts WHERE kind = 'OPERATIONAL' FOR UPDATE");
    try {
      await new Promise((r) => setTimeout(r, 500));
      instances.markDown(victim.url);
      await killServiceProcess(victim, 'SIGKILL');
    } finally {
      await holder.rollback();
    }
    const killedAt = progress.started;
    let restarted: ServiceProcess;
    try {
      restarted = await startServiceProcess(database!.url); // the survivor carries the load meanwhile
      services.push(restarted);
      instances.markUp(restarted.url);
    } finally {
      progress.release();
    }
    const restartedAt = progress.started;
    const log = await load;
    expect(progress.stopped, 'the load ran to its end').to.equal(undefined);

    const report = await checkProperty(db!, log, instances.list(), CONCURRENCY);
    console.log(`      killed at operation ${killedAt}, restarted at ${restartedAt}`);
    console.log(formatReport(report).replace(/^/gm, '      '));
    expect((await victim.exited).signal, 'the victim died of SIGKILL').to.equal('SIGKILL');
    const attempts = log.ops.flatMap((o) => o.attempts);
    expect(attempts.filter((a) => a.unacknowledged).length, 'requests in flight to the victim lost their connection').to.be.above(0);
    expect(attempts.filter((a) => a.instance === restarted.url && a.status !== undefined).length, 'the restarted instance took part').to.be.above(0);
    expect(log.moneyOps, 'every operation ran before the deadline').to.equal(OPERATIONS);
    expect(allViolations(report).map((v) => `${v.rule}: ${v.detail}`).slice(0, 20), `seed ${seed}`).to.deep.equal([]);
  });
});
