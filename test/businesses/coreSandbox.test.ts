/**
 * The core API's auth and business operations, and its sandbox helpers: SMS
 * messages, the per-business clock, provider outages (404 outside the sandbox).
 */
import { expect } from 'chai';
import type { RunningService } from '../../src/server.js';
import { expectProblem, expectValidation } from '../support/assertions.js';
import { get, post } from '../support/client.js';
import { newMobileNumber, startSession } from '../support/customers.js';
import { newBusiness, platformToken, tokenFor, type TestBusiness } from '../support/fixtures.js';
import { advanceClock, latestOtp } from '../support/sandbox.js';
import { extraServiceHooks, running } from '../support/service.js';
import { MAX_CLOCK_OFFSET_SECONDS } from '../../src/kernel/clock.js';
import { mobileNumberChangedMessage, otpCodeIn, otpMessage } from '../../src/kernel/otp/messages.js';

describe('core API: createToken and createBusiness', () => {
  it('createToken: 200 on the core path; its token works on the closed-loop API and the closed-loop one on core', async () => {
    const res = await post('/auth/token', { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ token_type: 'Bearer', client_kind: 'BUSINESS' });
    expect((await get('/cl/v1/labels', { token: res.body.access_token })).status).to.equal(200);
    const closedLoop = await tokenFor('demo-business', 'demo-business-secret');
    expect((await get('/testhelpers/sms-messages', { token: closedLoop })).status).to.equal(200);
  });

  it('createToken: 401 INVALID_CLIENT with WWW-Authenticate: Basic for a wrong secret', async () => {
    const res = await post('/auth/token', { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'wrong' });
    expectProblem(res, 401, 'INVALID_CLIENT');
    expect(res.headers.get('www-authenticate')).to.match(/^Basic /);
  });

  it('createBusiness: 201 with credentials that obtain a business token', async () => {
    const res = await post('/businesses', { name: 'Core Business' }, { token: await platformToken() });
    expect(res.status).to.equal(201);
    expect(res.body.operational_account.balance).to.equal('0.00');
    const token = await tokenFor(res.body.credentials.client_id, res.body.credentials.client_secret);
    expect((await get(`/cl/v1/businesses/${res.body.id}`, { token })).status).to.equal(200);
  });
});

describe('sandbox helpers of the core API', () => {
  let b: TestBusiness;
  before(async () => {
    b = await newBusiness();
  });

  it('listSandboxSmsMessages: the business\'s messages only, newest first, by number, paged', async () => {
    const session = await startSession(b);
    await startSession(b);
    const other = await newBusiness();
    await startSession(other, { mobile_number: session.mobile_number });
    const all = await get('/testhelpers/sms-messages', { token: b.token });
    expect(all.status).to.equal(200);
    expect(all.body.data.length).to.be.at.least(2);
    const mine = await get(`/testhelpers/sms-messages?mobile_number=${session.mobile_number}`, { token: b.token });
    expect(mine.body.data).to.have.length(1);
    expect(mine.body.data[0].mobile_number).to.equal(session.mobile_number);
    // The code is also a field of its own, for workflows that select by JSON pointer.
    expect(mine.body.data[0].otp).to.match(/^[0-9]{6}$/);
    expect(mine.body.data[0].text).to.include(mine.body.data[0].otp);
    const page = await get('/testhelpers/sms-messages?limit=1', { token: b.token });
    expect(page.body).to.include({ has_more: true });
    const next = await get(`/testhelpers/sms-messages?limit=1&cursor=${page.body.next_cursor}`, { token: b.token });
    expect(next.body.data[0].id).to.not.equal(page.body.data[0].id);
  });

  it('listSandboxSmsMessages: otp is the code of an OTP message in every locale, null for a notification', () => {
    for (const locale of ['ar', 'en'] as const) {
      expect(otpCodeIn(otpMessage(locale, '0417', 5))).to.equal('0417');
      expect(otpCodeIn(otpMessage(locale, '482913', 10))).to.equal('482913');
      expect(otpCodeIn(mobileNumberChangedMessage(locale, '966501234567', '2026-11-21'))).to.equal(null);
    }
  });

  it('advanceSandboxClock: 200 with the offset; adds up; moves only the calling business\'s clock', async () => {
    const mine = await newBusiness();
    const first = await post('/testhelpers/clock', { advance_seconds: 100 }, { token: mine.token });
    expect(first.status).to.equal(200);
    expect(first.body.offset_seconds).to.equal(100);
    expect(new Date(first.body.now).getTime() - Date.now()).to.be.closeTo(100_000, 5_000);
    const second = await post('/testhelpers/clock', { advance_seconds: 250 }, { token: mine.token });
    expect(second.body.offset_seconds).to.equal(350);
    // Another business's code, sent now, is still valid although this clock moved past its expiry.
    const session = await startSession(b);
    await advanceClock(mine, 600);
    const res = await post(`/onboarding/sessions/${session.session_id}/verify-otp`, { otp: await latestOtp(b, session.mobile_number) }, { token: b.token });
    expect(res.status).to.equal(200);
  });

  it('advanceSandboxClock: 400 VALIDATION_ERROR naming advance_seconds past 100 years in total or over 30 days at once', async () => {
    const mine = await newBusiness();
    expectValidation(await post('/testhelpers/clock', { advance_seconds: 2_592_001 }, { token: mine.token }), '/advance_seconds');
    await advanceClock(mine, 1);
    await running().db('sandbox_clocks').where({ business_id: mine.id }).update({ offset_ms: (MAX_CLOCK_OFFSET_SECONDS - 100) * 1000 });
    expectValidation(await post('/testhelpers/clock', { advance_seconds: 101 }, { token: mine.token }), '/advance_seconds');
    expect((await post('/testhelpers/clock', { advance_seconds: 100 }, { token: mine.token })).body.offset_seconds).to.equal(MAX_CLOCK_OFFSET_SECONDS);
  });

  it('createSandboxProviderOutage: 200; the outage fails exactly that many calls, of that business only', async () => {
    const mine = await newBusiness();
    const res = await post('/testhelpers/provider-outages', { provider: 'SMS', failures: 2 }, { token: mine.token });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ provider: 'SMS', failures_remaining: 2 });
    const start = () => post('/onboarding/sessions', { mobile_number: newMobileNumber() }, { token: mine.token });
    expect((await post('/onboarding/sessions', { mobile_number: newMobileNumber() }, { token: b.token })).status).to.equal(201);
    expectProblem(await start(), 503, 'SERVICE_UNAVAILABLE');
    expectProblem(await start(), 503, 'SERVICE_UNAVAILABLE');
    expect((await start()).status).to.equal(201);
    await post('/testhelpers/provider-outages', { provider: 'SMS', failures: 3 }, { token: mine.token });
    await post('/testhelpers/provider-outages', { provider: 'SMS', failures: 0 }, { token: mine.token });
    expect((await start()).status).to.equal(201);
  });

  describe('outside the sandbox (SANDBOX=false)', () => {
    let production: RunningService;
    extraServiceHooks({ sandbox: false }, (s) => (production = s));

    it('404 NOT_FOUND from every core test helper, and nothing changes', async () => {
      const opts = { token: b.token, baseUrl: production.url };
      expectProblem(await get('/testhelpers/sms-messages', opts), 404, 'NOT_FOUND');
      expectProblem(await get('/testhelpers/user-invitations', opts), 404, 'NOT_FOUND');
      expectProblem(await post('/testhelpers/clock', { advance_seconds: 60 }, opts), 404, 'NOT_FOUND');
      expectProblem(await post('/testhelpers/provider-outages', { provider: 'SMS', failures: 1 }, opts), 404, 'NOT_FOUND');
      expect((await post('/testhelpers/clock', { advance_seconds: 1 }, { token: b.token })).body.offset_seconds).to.equal(1);
    });

    it('sends no SMS, so a start is 503 SERVICE_UNAVAILABLE with nothing stored', async () => {
      const mobile = newMobileNumber();
      expectProblem(await post('/onboarding/sessions', { mobile_number: mobile }, { token: b.token, baseUrl: production.url }), 503, 'SERVICE_UNAVAILABLE');
      expect((await get(`/testhelpers/sms-messages?mobile_number=${mobile}`, { token: b.token })).body.data).to.have.length(0);
    });
  });
});
