/**
 * Turns (src/kernel/scheduling/turns.ts): one business's work on one lane runs one at a time, in
 * arrival order, except that urgent work goes before waiting work that is not; a failure
 * ends only its own turn.
 */
import { expect } from 'chai';
import knex from 'knex';
import { inBusinessTurn } from '../../../src/kernel/scheduling/turns.js';

describe('turns of one business on one lane', () => {
  const db = knex({ client: 'pg' }); // a pool key only: no query is made
  after(() => db.destroy());

  it('runs one at a time in arrival order, urgent work before waiting normal work, past a failure', async () => {
    const order: string[] = [];
    let active = 0;
    let most = 0;
    const work = (name: string, fail = false) => async () => {
      active += 1;
      most = Math.max(most, active);
      await new Promise((r) => setTimeout(r, 5));
      order.push(name);
      active -= 1;
      if (fail) throw new Error(name);
      return name;
    };
    const results = await Promise.allSettled([
      inBusinessTurn(db, 'b1', 'lane', work('create 1')),
      inBusinessTurn(db, 'b1', 'lane', work('create 2', true)),
      inBusinessTurn(db, 'b1', 'lane', work('create 3')),
      inBusinessTurn(db, 'b1', 'lane', work('settle 1'), { urgent: true }),
      inBusinessTurn(db, 'b1', 'lane', work('settle 2'), { urgent: true }),
      inBusinessTurn(db, 'b2', 'lane', work('other business')),
    ]);
    // b2's lane is its own: it starts at once, beside b1's first work.
    expect(order).to.deep.equal(['create 1', 'other business', 'settle 1', 'settle 2', 'create 2', 'create 3']);
    expect(most).to.equal(2);
    expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    // A lane that emptied starts the next work at once.
    expect(await inBusinessTurn(db, 'b1', 'lane', work('later'))).to.equal('later');
  });
});
