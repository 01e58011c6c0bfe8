/**
 * The adaptive limit of webhook attempts per endpoint (src/webhooks/endpointConcurrency.ts),
 * exercised directly: the delivery test (webhookDelivery.test.ts) shows what a receiver
 * that pushes back sees; this one pins the rule itself (AIMD, one decrease per round,
 * waiting in order, giving up after the wait, or at once when the wait would be longer).
 */
import { expect } from 'chai';
import { EndpointConcurrency, INITIAL_LIMIT, MAX_DEFER_MS, MAX_LIMIT, MIN_DEFER_MS, signalOf, type Slot } from '../../src/webhooks/endpointConcurrency.js';

async function take(limits: EndpointConcurrency, n: number, endpoint = 'e'): Promise<Slot[]> {
  const slots: Slot[] = [];
  for (let i = 0; i < n; i++) slots.push((await limits.acquire(endpoint, 1_000))!);
  return slots;
}

describe('adaptive concurrency per webhook endpoint', () => {
  it('reads 429, 5xx, time-outs and failed connections as overload, 2xx as success, other answers as neither', () => {
    expect([429, 500, 503].map((s) => signalOf(s, `HTTP ${s}`))).to.deep.equal(['overload', 'overload', 'overload']);
    expect(signalOf(null, 'timed out after 15000 ms')).to.equal('overload');
    expect(signalOf(null, 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:1')).to.equal('overload');
    expect([200, 204].map((s) => signalOf(s, null))).to.deep.equal(['ok', 'ok']);
    expect([400, 404, 410, 301].map((s) => signalOf(s, `HTTP ${s}`))).to.deep.equal(['neutral', 'neutral', 'neutral', 'neutral']);
    expect(signalOf(null, 'URL not allowed: loopback')).to.equal('neutral');
  });

  it('halves the limit once for refusals to attempts sent together, and grows it by one per limit of successes', async () => {
    const limits = new EndpointConcurrency();
    const round = await take(limits, INITIAL_LIMIT);
    for (const slot of round) slot.release('overload');
    expect(limits.limitOf('e'), 'one halving for the whole round').to.equal(INITIAL_LIMIT / 2);

    const next = await take(limits, INITIAL_LIMIT / 2);
    next[0].release('overload');
    expect(limits.limitOf('e'), 'an attempt sent after the decrease decreases again').to.equal(INITIAL_LIMIT / 4);
    for (const slot of next.slice(1)) slot.release('ok');
    // 4 + 7 × (1 / limit): the limit rises by about one per limit's worth of successes.
    expect(limits.limitOf('e')).to.equal(INITIAL_LIMIT / 4 + 1);
    expect(limits.limitOf('other'), 'each endpoint its own').to.equal(INITIAL_LIMIT);
  });

  it('never goes below one nor above its maximum', async () => {
    const limits = new EndpointConcurrency();
    for (let i = 0; i < 10; i++) (await take(limits, 1))[0].release('overload');
    expect(limits.limitOf('e')).to.equal(1);
    for (let i = 0; i < 20_000; i++) (await take(limits, 1))[0].release('ok');
    expect(limits.limitOf('e')).to.equal(MAX_LIMIT);
  });

  it('makes attempts beyond the limit wait in order of arrival, and gives up on one after its wait', async () => {
    const limits = new EndpointConcurrency();
    const held = await take(limits, INITIAL_LIMIT);
    const order: string[] = [];
    const first = limits.acquire('e', 5_000).then((s) => (order.push('first'), s));
    const second = limits.acquire('e', 5_000).then((s) => (order.push('second'), s));
    const impatient = limits.acquire('e', 50);
    expect(await impatient, 'no slot within its wait').to.equal(null);
    held[0].release('neutral');
    held[1].release('neutral');
    expect(await first).to.not.equal(null);
    expect(await second).to.not.equal(null);
    expect(order).to.deep.equal(['first', 'second']);

    const aborted = new AbortController();
    const waiting = limits.acquire('e', 5_000, aborted.signal);
    aborted.abort();
    expect(await waiting, 'the instance shutting down').to.equal(null);
  });

  it('puts an attempt back at once when its wait would outlast its patience, and says when to come back', async () => {
    const limits = new EndpointConcurrency();
    expect(limits.deferMs('slow'), 'an endpoint not seen').to.equal(MIN_DEFER_MS);
    const held = await take(limits, INITIAL_LIMIT, 'slow');
    await new Promise((r) => setTimeout(r, 150)); // its attempts in flight are 150 ms old
    const asked = performance.now();
    expect(await limits.acquire('slow', 100), 'a wait of one more attempt (150 ms and counting) > 100 ms').to.equal(null);
    expect(performance.now() - asked, 'answered at once').to.be.below(50);
    for (const slot of held) slot.release('overload', 20_000); // they lasted 20 s (a receiver that never answers)
    expect(limits.limitOf('slow')).to.equal(INITIAL_LIMIT / 2);
    expect(limits.deferMs('slow'), 'one attempt of 20 s').to.equal(20_000);
    const again = await take(limits, INITIAL_LIMIT / 2, 'slow');
    expect(await limits.acquire('slow', 1_000), 'behind a full limit of 20 s attempts').to.equal(null);
    expect(limits.deferMs('slow'), 'two rounds of 20 s, capped').to.equal(MAX_DEFER_MS);
    for (const slot of again) slot.release('neutral');
  });
});
