/**
 * Generative contract fuzz (test/support/fuzz/): every operation of both documents gets
 * requests generated from its schemas with fast-check, with real ids, and the same
 * requests with one hostile mutation each (long values in every header, query, path and
 * body field, unknown, empty and repeated parameters, wrong types, malformed JSON,
 * Unicode edge cases, bad versions, missing, broken and wrong-kind credentials). Every
 * answer must be one the documents describe, no answer may be a 5xx or take 15 s, and
 * the shared rules' promises must hold.
 *
 * FUZZ_SEED replays a run (the seed is printed); FUZZ_RUNS is the number of requests per
 * operation and mutation (2 in `npm test`: about 3,700 requests; `npm run fuzz` runs 6:
 * more than 10,000); FUZZ_REPORT names a file to write every finding to, one JSON line each.
 */
import { writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { fuzzOperations } from '../support/fuzz/requests.js';
import { describeFindings, generateRequests, runFuzz, totalsLine } from '../support/fuzz/runner.js';
import { buildWorld } from '../support/fuzz/world.js';

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const RUNS = Number(process.env.FUZZ_RUNS ?? 2);

describe('contract fuzz: every operation, generated and hostile requests, against the documents', function () {
  // About 25 ms per request on two cores, with room to spare.
  this.timeout(120_000 + RUNS * 60_000);

  it(`answers every request within the documents (FUZZ_SEED=${SEED}, FUZZ_RUNS=${RUNS})`, async () => {
    expect(Number.isInteger(SEED), 'FUZZ_SEED must be an integer').to.equal(true);
    const world = await buildWorld();
    const requests = await generateRequests(world, SEED, RUNS);
    const totals = await runFuzz(requests, SEED);
    console.log(`      ${totalsLine(totals)}`);
    if (totals.findings.length) console.log(describeFindings(totals.findings));
    if (process.env.FUZZ_REPORT) writeFileSync(process.env.FUZZ_REPORT, totals.findings.map((f) => JSON.stringify(f)).join('\n'));
    expect(totals.operations, 'operations fuzzed').to.equal(fuzzOperations().length);
    expect({ fiveXx: totals.fiveXx, offSpec: totals.offSpec, timeouts: totals.timeouts }, `findings (replay with FUZZ_SEED=${SEED}):\n${describeFindings(totals.findings, 10)}`).to.deep.equal({
      fiveXx: 0,
      offSpec: 0,
      timeouts: 0,
    });
  });
});
