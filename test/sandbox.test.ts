import { expect } from 'chai';
import type { RunningService } from '../src/server.js';
import { get, post } from './support/client.js';
import { newBusiness } from './support/fixtures.js';
import { startExtraService } from './support/service.js';
import { expectProblem } from './support/assertions.js';

describe('test helpers outside the sandbox', () => {
  let production: RunningService;
  before(async () => {
    production = await startExtraService({ sandbox: false });
  });
  after(async () => {
    await production.close();
  });

  it('createSandboxTopup answers 404 NOT_FOUND when SANDBOX=false and moves no money', async () => {
    const b = await newBusiness();
    const res = await post('/cl/v1/testhelpers/topups', { amount: '10.00' }, { token: b.token, baseUrl: production.url });
    expectProblem(res, 404, 'NOT_FOUND');
    const business = await get(`/cl/v1/businesses/${b.id}`, { token: b.token });
    expect(business.body.operational_account.balance).to.equal('0.00');
  });
});
