/**
 * The endpoints' health as the service reports it (`listWebhookEndpointHealth`), against real
 * local receivers: a healthy, a failing and a disabled endpoint, each in its state with its
 * last success, its newest failure and its attempts of the last day per hour, the same
 * attempts the delivery log lists; filtered by state, paged, and kept from other businesses.
 */
import { expect } from 'chai';
import { get, post, request } from '../support/client.js';
import { newBusiness, topup, type TestBusiness } from '../support/fixtures.js';
import { eventually, expectProblem, expectValidation } from '../support/assertions.js';
import { receiversOfSuite, testSecret } from '../support/webhooks.js';

const HEALTH = '/cl/v1/webhooks/endpoint-health';
const HOUR_MS = 3_600_000;

/** Registers `url` for topups; returns the endpoint's id. */
async function register(b: TestBusiness, url: string): Promise<string> {
  const res = await post('/cl/v1/webhooks/endpoints', { url, secret: testSecret(), events: ['topup.complete'] }, { token: b.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  const list = await get('/cl/v1/webhooks/endpoints', { token: b.token });
  return list.body.data.find((e: { url: string }) => e.url === url).id;
}

/** The endpoint's attempts as its delivery log lists them. */
async function attemptsOf(b: TestBusiness, id: string): Promise<{ outcome: string; started_at: string; response_status: number | null; error: string | null }[]> {
  return (await get(`/cl/v1/webhooks/endpoints/${id}/attempts?limit=100`, { token: b.token })).body.data;
}

describe('webhook endpoint health (listWebhookEndpointHealth)', function () {
  this.timeout(120_000);
  const receiver = receiversOfSuite();
  let b: TestBusiness;
  let healthy: string;
  let failing: string;
  let disabled: string;

  before(async () => {
    b = await newBusiness();
    healthy = await register(b, (await receiver()).url);
    failing = await register(b, (await receiver(() => ({ status: 500, body: 'down' }))).url);
    disabled = await register(b, (await receiver()).url);
    expect((await request('PATCH', `/cl/v1/webhooks/endpoints/${disabled}`, { token: b.token, body: { status: 'DISABLED' } })).status).to.equal(200);
    await topup(b.token, '10.00');
    await eventually(async () => {
      expect((await attemptsOf(b, healthy)).map((a) => a.outcome)).to.deep.equal(['SUCCEEDED']);
      expect((await attemptsOf(b, failing)).length).to.be.at.least(2);
    }, 30_000);
  });

  it('reports each endpoint in its state, with its last success, newest failure and hourly attempts, as its delivery log has them', async () => {
    // The failing endpoint keeps retrying: its log is read first, so the health read after it holds at least as much.
    const failures = await attemptsOf(b, failing);
    const res = await get(HEALTH, { token: b.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const byId = new Map(res.body.data.map((h: any) => [h.endpoint.id, h]));
    expect([...byId.keys()].sort()).to.deep.equal([healthy, failing, disabled].sort());
    const ok: any = byId.get(healthy);
    const [success] = await attemptsOf(b, healthy);
    expect(ok).to.deep.include({ state: 'HEALTHY', failing_since: null, last_failure: null, last_success_at: success!.started_at });
    expect(ok.attempts_24h).to.deep.equal({ succeeded: 1, failed: 0 });

    const bad: any = byId.get(failing);
    expect(bad.state).to.equal('FAILING');
    expect(bad.failing_since).to.be.a('string');
    expect(bad.last_success_at).to.equal(null);
    expect(bad.last_failure).to.include({ response_status: 500, error: 'HTTP 500' });
    expect(Date.parse(bad.last_failure.started_at)).to.be.at.least(Date.parse(failures.at(-1)!.started_at));
    expect(bad.attempts_24h.succeeded).to.equal(0);
    expect(bad.attempts_24h.failed).to.be.at.least(failures.length);

    const off: any = byId.get(disabled);
    expect(off).to.deep.include({ state: 'DISABLED', last_success_at: null, last_failure: null });
    expect(off.endpoint).to.include({ status: 'DISABLED', disabled_reason: 'MANUAL' });
    expect(off.attempts_24h).to.deep.equal({ succeeded: 0, failed: 0 });

    for (const h of res.body.data) {
      expect(h.hourly).to.have.length(24);
      const starts = h.hourly.map((x: { hour: string }) => Date.parse(x.hour));
      expect(starts.every((t: number, i: number) => i === 0 || t - starts[i - 1] === HOUR_MS), 'consecutive hours').to.equal(true);
      expect(starts.at(-1)).to.equal(Math.floor(Date.now() / HOUR_MS) * HOUR_MS);
      const sum = (k: 'succeeded' | 'failed') => h.hourly.reduce((n: number, x: any) => n + x[k], 0);
      expect({ succeeded: sum('succeeded'), failed: sum('failed') }).to.deep.equal(h.attempts_24h);
    }
  });

  it('filters by state and by needing attention, and pages as the endpoint list does', async () => {
    for (const [state, id] of [['HEALTHY', healthy], ['FAILING', failing], ['DISABLED', disabled]] as const) {
      const res = await get(`${HEALTH}?state=${state}`, { token: b.token });
      expect(res.body.data.map((h: any) => [h.endpoint.id, h.state])).to.deep.equal([[id, state]]);
    }
    // The endpoints needing attention in one request (newest first: the disabled one was registered last).
    const attention = await get(`${HEALTH}?needs_attention=true`, { token: b.token });
    expect(attention.body.data.map((h: any) => [h.endpoint.id, h.state])).to.deep.equal([[disabled, 'DISABLED'], [failing, 'FAILING']]);
    expect((await get(`${HEALTH}?needs_attention=false`, { token: b.token })).body.data).to.have.length(3);
    const first = await get(`${HEALTH}?limit=2`, { token: b.token });
    expect(first.body.has_more).to.equal(true);
    const second = await get(`${HEALTH}?limit=2&cursor=${first.body.next_cursor}`, { token: b.token });
    const listed = (await get('/cl/v1/webhooks/endpoints', { token: b.token })).body.data.map((e: any) => e.id);
    expect([...first.body.data, ...second.body.data].map((h: any) => h.endpoint.id)).to.deep.equal(listed);
  });

  it("shows nothing of another business's endpoints, and refuses a bad filter or cursor", async () => {
    const other = await newBusiness();
    expect((await get(HEALTH, { token: other.token })).body.data).to.deep.equal([]);
    expectValidation(await get(`${HEALTH}?state=BROKEN`, { token: b.token }), '/query/state');
    expectValidation(await get(`${HEALTH}?needs_attention=maybe`, { token: b.token }), '/query/needs_attention');
    expectProblem(await get(`${HEALTH}?cursor=AAAA`, { token: b.token }), 400, 'INVALID_CURSOR');
  });
});
