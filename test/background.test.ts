/**
 * The background lane (src/kernel/background.ts): a pool runs at most its concurrency of
 * background work at a time, in order of arrival; a failure gives its place to the next
 * work; pools are independent; a concurrency that is not a positive integer is refused.
 */
import { expect } from 'chai';
import knex from 'knex';
import { configureBackground, inBackground } from '../src/kernel/background.js';

describe('the background lane of a pool', () => {
  const pools = [knex({ client: 'pg' }), knex({ client: 'pg' })]; // pool keys only: no query is made
  after(() => Promise.all(pools.map((p) => p.destroy())));

  /** Work that records its start and end in `log` and counts how many run at once in `peak`. */
  function worker(log: string[], peak: { now: number; most: number }) {
    return (name: string, fail = false) => async () => {
      peak.now += 1;
      peak.most = Math.max(peak.most, peak.now);
      log.push(`start ${name}`);
      await new Promise((r) => setTimeout(r, 5));
      log.push(`end ${name}`);
      peak.now -= 1;
      if (fail) throw new Error(name);
      return name;
    };
  }

  it('runs one at a time by default, in arrival order, past a failure; another pool is not held', async () => {
    const [db, other] = pools;
    const log: string[] = [];
    const peak = { now: 0, most: 0 };
    const work = worker(log, peak);
    const results = await Promise.allSettled([
      inBackground(db, work('bulk 1')),
      inBackground(db, work('settle', true)),
      inBackground(db, work('relay')),
    ]);
    expect(log).to.deep.equal(['start bulk 1', 'end bulk 1', 'start settle', 'end settle', 'start relay', 'end relay']);
    expect(peak.most).to.equal(1);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).to.deep.equal(['bulk 1', 'settle', 'relay']);

    const otherLog: string[] = [];
    const both = { now: 0, most: 0 };
    await Promise.all([inBackground(db, worker(otherLog, both)('a')), inBackground(other, worker(otherLog, both)('b'))]);
    expect(both.most).to.equal(2);
  });

  it('runs as many at once as configured, never more', async () => {
    const [db] = pools;
    configureBackground(db, 2);
    const log: string[] = [];
    const peak = { now: 0, most: 0 };
    const work = worker(log, peak);
    await Promise.all(['1', '2', '3', '4', '5'].map((n) => inBackground(db, work(n))));
    expect(peak.most).to.equal(2);
    expect(log.filter((l) => l.startsWith('start'))).to.deep.equal(['start 1', 'start 2', 'start 3', 'start 4', 'start 5']);
    // A lane that emptied starts the next work at once.
    expect(await inBackground(db, work('later'))).to.equal('later');
    expect(peak.now).to.equal(0);
  });

  it('refuses a concurrency that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => configureBackground(pools[1], bad)).to.throw(RangeError);
  });
});
