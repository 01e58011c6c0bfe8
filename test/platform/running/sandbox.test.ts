import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { RunningService } from '../../../src/server.js';
import { get, post } from '../../support/client.js';
import { newBusiness } from '../../support/fixtures.js';
import { extraServiceHooks } from '../../support/service.js';
import { expectProblem } from '../../support/assertions.js';

describe('test helpers outside the sandbox', () => {
  let production: RunningService;
  extraServiceHooks({ sandbox: false }, (s) => (production = s));

  it('createSandboxTopup answers 404 NOT_FOUND when SANDBOX=false and moves no money', async () => {
    const b = await newBusiness();
    const res = await post('/cl/v1/testhelpers/topups', { amount: '10.00' }, { token: b.token, baseUrl: production.url });
    expectProblem(res, 404, 'NOT_FOUND');
    const business = await get(`/cl/v1/businesses/${b.id}`, { token: b.token });
    expect(business.body.operational_account.balance).to.equal('0.00');
  });

  it('with an Idempotency-Key, the 404 (a failure before the ledger call) is stored and replayed like any 4xx', async () => {
    const b = await newBusiness();
    const opts = { token: b.token, baseUrl: production.url, idempotencyKey: randomUUID() };
    const first = await post('/cl/v1/testhelpers/topups', { amount: '10.00' }, opts);
    expectProblem(first, 404, 'NOT_FOUND');
    expect(first.headers.get('idempotent-replayed')).to.equal(null);
    const again = await post('/cl/v1/testhelpers/topups', { amount: '10.00' }, opts);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    const other = await post('/cl/v1/testhelpers/topups', { amount: '11.00' }, opts);
    expectProblem(other, 422, 'IDEMPOTENCY_KEY_REUSED');
  });
});
