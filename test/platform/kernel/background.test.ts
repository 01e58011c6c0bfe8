/**
 * The background lane (src/kernel/scheduling/background.ts): a pool runs at most its concurrency of
 * background work at a time, in order of arrival, payout work before waiting delivery
 * work but never more than four starts in a row while some waits; a failure gives its
 * place to the next work; pools are independent; after each piece of work an API request
 * overlapped, its slot rests for the rest ratio times as long as the work ran (2.5 times
 * that after delivery work; at most the longest rest),
 * while the caller already has its answer, and after work no request overlapped it does not; a concurrency that is not an integer from 1 to 64, a rest ratio outside
 * 0 … 10 and a longest rest outside 0 … 5 s are refused. On the service, the lane's
 * transactions run on its own sessions, which on the embedded database run at the lowest
 * CPU priority (src/db/priority.ts).
 */
import os from 'node:os';
import { expect } from 'chai';
import knex from 'knex';
import { beginApiRequest, watchApiRequests } from '../../../src/kernel/scheduling/apiActivity.js';
import { backgroundRead, backgroundTransaction, configureBackground, DELIVERY_REST_FACTOR, inBackground, PAYOUT_WORK_IN_A_ROW } from '../../../src/kernel/scheduling/background.js';
import { autogroupNice, BACKGROUND_NICE, groupsBySession } from '../../../src/db/priority.js';
import { BACKGROUND_APPLICATION_NAME } from '../../../src/server.js';
import { get } from '../../support/client.js';
import { running } from '../../support/service.js';

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

    await inBackground(db, async () => undefined); // after the rest that follows 'relay' (a piece this short has none)
    const otherLog: string[] = [];
    const both = { now: 0, most: 0 };
    await Promise.all([inBackground(db, worker(otherLog, both)('a')), inBackground(other, worker(otherLog, both)('b'))]);
    expect(both.most).to.equal(2);
  });

  it('runs as many at once as configured, never more', async () => {
    const [db] = pools;
    configureBackground(db, { concurrency: 2, restRatio: 0 });
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

  it('rests after each piece of work as many times as long as it ran, at most the longest rest, once the caller has its answer', async () => {
    const db = knex({ client: 'pg' });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const answered = beginApiRequest(); // an API request in flight throughout: every piece rests
    try {
      configureBackground(db, { concurrency: 1, restRatio: 2 });
      const at: Record<string, number> = {};
      const first = inBackground(db, async () => {
        at.firstStarted = performance.now();
        await sleep(40);
        at.firstEnded = performance.now();
        return 'first';
      }).then((v) => ((at.answered = performance.now()), v));
      const second = inBackground(db, async () => ((at.secondStarted = performance.now()), 'second'));
      expect(await Promise.all([first, second])).to.deep.equal(['first', 'second']);
      // The caller has its answer when its work ends; the next work starts after a rest of
      // twice the first's time (at least 2 × 40 ms), not before.
      expect(at.answered).to.be.below(at.secondStarted);
      expect(at.secondStarted - at.firstEnded).to.be.at.least(2 * (at.firstEnded - at.firstStarted) - 2);
      expect(at.secondStarted - at.answered).to.be.at.least(75);
      // A failure rests too, and its caller has the rejection at once.
      let rejected = 0;
      const failed = inBackground(db, async () => {
        await sleep(30);
        throw new Error('refused');
      }).catch((err: Error) => ((rejected = performance.now()), err.message));
      const after = inBackground(db, async () => performance.now());
      const [reason, afterStarted] = await Promise.all([failed, after]);
      expect(reason).to.equal('refused');
      expect(afterStarted - rejected).to.be.at.least(55);
      // Without a rest the next work starts as the one before ends.
      configureBackground(db, { concurrency: 1, restRatio: 0 });
      let ended = 0;
      const quick = inBackground(db, async () => {
        await sleep(40);
        ended = performance.now();
      });
      const next = inBackground(db, async () => performance.now());
      const [, nextStarted] = await Promise.all([quick, next]);
      expect(nextStarted - ended).to.be.below(30);
      // A rest is at most the longest rest: ten times 40 ms would be 400 ms.
      configureBackground(db, { concurrency: 1, restRatio: 10, maxRestMs: 60 });
      const long = inBackground(db, async () => {
        await sleep(40);
        ended = performance.now();
      });
      const capped = inBackground(db, async () => performance.now());
      const [, cappedStarted] = await Promise.all([long, capped]);
      expect(cappedStarted - ended).to.be.at.least(55).and.below(250);
    } finally {
      answered();
      await db.destroy();
    }
  });

  it('rests only after work that an API request overlapped: in flight as it started, or begun while it ran', async () => {
    const db = knex({ client: 'pg' });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    /** The gap between `work`'s end and the start of the work queued behind it, in ms. */
    const gapAfter = async (work: () => Promise<unknown>) => {
      let ended = 0;
      const first = inBackground(db, async () => {
        await work();
        ended = performance.now();
      });
      const next = inBackground(db, async () => performance.now());
      const [, nextStarted] = await Promise.all([first, next]);
      return nextStarted - ended;
    };
    try {
      configureBackground(db, { concurrency: 1, restRatio: 2 });
      // No request: no rest (twice 40 ms would be 80).
      expect(await gapAfter(() => sleep(40))).to.be.below(30);
      // A request in flight as the work starts, answered during it.
      let answered = beginApiRequest();
      expect(await gapAfter(async () => {
        await sleep(20);
        answered();
        await sleep(20);
      })).to.be.at.least(75);
      // A request that begins and is answered while the work runs.
      expect(await gapAfter(async () => {
        await sleep(20);
        beginApiRequest()();
        await sleep(20);
      })).to.be.at.least(75);
      // A request answered before the work started is none of its business.
      answered = beginApiRequest();
      answered();
      answered(); // a second report of the same answer changes nothing
      expect(await gapAfter(() => sleep(40))).to.be.below(30);
    } finally {
      await db.destroy();
    }
  });

  it('starts payout work before waiting delivery work, and the delivery work waiting longest after four payout starts in a row', async () => {
    const db = knex({ client: 'pg' });
    try {
      configureBackground(db, { concurrency: 1, restRatio: 0 });
      const started: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const piece = (name: string, wait?: Promise<void>) => async () => {
        started.push(name);
        await wait;
      };
      const all = [inBackground(db, piece('first payout work', held))];
      all.push(inBackground(db, piece('delivery 1'), 'deliveries'));
      for (const n of [1, 2, 3, 4, 5, 6]) all.push(inBackground(db, piece(`payout ${n}`)));
      all.push(inBackground(db, piece('delivery 2'), 'deliveries'));
      release();
      await Promise.all(all);
      expect(PAYOUT_WORK_IN_A_ROW).to.equal(4);
      expect(started).to.deep.equal(['first payout work', 'payout 1', 'payout 2', 'payout 3', 'delivery 1', 'payout 4', 'payout 5', 'payout 6', 'delivery 2']);
      // Delivery work alone starts in order of arrival, as payout work alone does.
      started.length = 0;
      await Promise.all(['a', 'b', 'c'].map((n) => inBackground(db, piece(n), 'deliveries')));
      expect(started).to.deep.equal(['a', 'b', 'c']);
    } finally {
      await db.destroy();
    }
  });

  it('rests after delivery work DELIVERY_REST_FACTOR times as long as after payout work that ran as long', async () => {
    const db = knex({ client: 'pg' });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const answered = beginApiRequest(); // every piece rests
    /** The gap between a 40 ms piece of `kind` and the work queued behind it, in ms. */
    const gapAfter = async (kind: 'payouts' | 'deliveries') => {
      let ended = 0;
      const first = inBackground(db, async () => {
        await sleep(40);
        ended = performance.now();
      }, kind);
      const next = inBackground(db, async () => performance.now(), kind);
      const [, nextStarted] = await Promise.all([first, next]);
      return nextStarted - ended;
    };
    try {
      configureBackground(db, { concurrency: 1, restRatio: 1 });
      expect(DELIVERY_REST_FACTOR).to.equal(2.5);
      const payouts = await gapAfter('payouts');
      const deliveries = await gapAfter('deliveries');
      expect(payouts).to.be.at.least(38).and.below(95);
      expect(deliveries).to.be.at.least(2.5 * 40 - 2);
    } finally {
      answered();
      await db.destroy();
    }
  });

  it('refuses a concurrency that is not an integer from 1 to 64, a rest ratio outside 0 to 10 and a longest rest outside 0 to 5 s', () => {
    for (const bad of [0, -1, 1.5, 65, Number.NaN]) expect(() => configureBackground(pools[1], { concurrency: bad })).to.throw(RangeError);
    for (const bad of [-0.5, 10.5, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => configureBackground(pools[1], { concurrency: 1, restRatio: bad })).to.throw(RangeError);
    for (const bad of [-1, 5_001, Number.NaN]) expect(() => configureBackground(pools[1], { concurrency: 1, maxRestMs: bad })).to.throw(RangeError);
    expect(() => configureBackground(pools[1], { concurrency: 1, maxRestMs: 0 })).not.to.throw();
  });
});

describe("the service's background lane", () => {
  it('sees each API request the service serves, answered or refused (what its rest waits for)', async () => {
    for (const [path, status] of [['/health', 200], ['/cl/v1/wallets', 401]] as const) {
      const watch = watchApiRequests();
      expect((await get(path)).status).to.equal(status);
      expect(watch.overlapped()).to.equal(true);
    }
  });

  it('runs its transactions and reads on sessions of its own with generic plans, at the lowest CPU priority on the embedded database', async function () {
    const { db } = running();
    const session = (q: typeof db) =>
      q.raw<{ rows: { pid: number; app: string; plans: string }[] }>(
        "SELECT pg_backend_pid() AS pid, current_setting('application_name') AS app, current_setting('plan_cache_mode') AS plans",
      );
    const { rows: [background] } = await backgroundTransaction(db, (trx) => session(trx));
    const { rows: [foreground] } = await session(db);
    const { rows: [read] } = await backgroundRead(db, (trx) => session(trx));
    expect(background.app).to.equal(BACKGROUND_APPLICATION_NAME);
    expect(read.app).to.equal(BACKGROUND_APPLICATION_NAME);
    expect(foreground.app).to.not.equal(BACKGROUND_APPLICATION_NAME);
    // The lane's statements are planned for any business (GENERIC_PLANS), the API's as PostgreSQL chooses.
    expect([background.plans, read.plans]).to.deep.equal(['force_generic_plan', 'force_generic_plan']);
    expect(foreground.plans).to.equal('auto');
    if (process.env.DATABASE_URL) this.skip(); // another machine's processes: not the service's to schedule
    expect(os.getPriority(background.pid)).to.equal(BACKGROUND_NICE);
    expect(os.getPriority(foreground.pid)).to.equal(0);
    // Each backend is a process session of its own: where the kernel shares the CPU between
    // sessions first, the session's weight is what gives way (src/db/priority.ts).
    if (groupsBySession()) {
      expect(autogroupNice(background.pid)).to.equal(BACKGROUND_NICE);
      expect(autogroupNice(foreground.pid)).to.equal(0);
    }
  });
});
