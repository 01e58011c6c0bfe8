/**
 * Property test: thousands of random concurrent money operations of every
 * kind, spread over two service instances on the one test database, then the ledger and
 * every answer are checked (see test/support/property/). The seed is printed; replay a
 * failing run's choices with PROPERTY_SEED=<seed>.
 */
import { expect } from 'chai';
import type { RunningService } from '../../src/server.js';
import { extraServiceHooks, running } from '../support/service.js';
import { seedFrom } from '../support/property/random.js';
import { allViolations, checkProperty, formatReport, runProperty } from '../support/property/run.js';
import { Instances } from '../support/property/transport.js';

const OPERATIONS = Number(process.env.PROPERTY_OPERATIONS ?? 5_000);
const CONCURRENCY = Number(process.env.PROPERTY_CONCURRENCY ?? 24);

describe('money property: random concurrent operations over two instances', function () {
  this.timeout(600_000);
  let extra: RunningService | undefined;
  extraServiceHooks({}, (s) => (extra = s));

  it(`keeps conservation, overdraft, refund, reversal and idempotency rules over ${OPERATIONS} operations`, async () => {
    const seed = seedFrom(process.env.PROPERTY_SEED);
    console.log(`      property seed ${seed} (replay with PROPERTY_SEED=${seed})`);
    const instances = new Instances([running().url, extra!.url]);
    const log = await runProperty(instances, {
      seed,
      operations: OPERATIONS,
      concurrency: CONCURRENCY,
      businesses: Number(process.env.PROPERTY_BUSINESSES ?? 3),
      walletsPerBusiness: 6,
      overdraftWallets: 2,
      deadlineMs: 420_000,
    });
    const report = await checkProperty(running().db, log, instances.list(), CONCURRENCY);
    console.log(formatReport(report).replace(/^/gm, '      '));
    expect(log.moneyOps, 'every operation ran before the deadline').to.equal(OPERATIONS);
    const attempts = log.ops.flatMap((o) => o.attempts);
    for (const url of instances.list()) {
      const share = attempts.filter((a) => a.instance === url).length / attempts.length;
      expect(share, `share of the requests ${url} answered`).to.be.above(0.3);
    }
    expect(report.gaps, 'scenarios the run must exercise').to.deep.equal([]);
    expect(allViolations(report).map((v) => `${v.rule}: ${v.detail}`).slice(0, 20), `seed ${seed}`).to.deep.equal([]);
  });
});
