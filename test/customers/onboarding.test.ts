/**
 * Onboarding sessions: start, verify the code, resend it, read, cancel, and the
 * state machine's refusals (409 naming the state, nothing changed).
 */
import { expect } from 'chai';
import { expectProblem, expectValidation } from '../support/assertions.js';
import { get, post } from '../support/client.js';
import { initiateIdentity, newMobileNumber, startSession, validInformation, verifiedSession } from '../support/customers.js';
import { newBusiness, type TestBusiness } from '../support/fixtures.js';
import { captureLogs } from '../support/logs.js';
import { advanceClock, latestOtp, otherCode, providerOutage } from '../support/sandbox.js';
import { running } from '../support/service.js';

const db = () => running().db;
const verify = (b: TestBusiness, id: string, otp: string) => post(`/onboarding/sessions/${id}/verify-otp`, { otp }, { token: b.token });
const resend = (b: TestBusiness, id: string, body: Record<string, unknown> = {}) => post(`/onboarding/sessions/${id}/resend-otp`, body, { token: b.token });
const cancel = (b: TestBusiness, id: string) => post(`/onboarding/sessions/${id}/cancel`, { reason: 'CUSTOMER_REQUEST' }, { token: b.token });

describe('onboarding: startOnboarding', () => {
  let b: TestBusiness;
  before(async () => {
    b = await newBusiness();
  });

  it('201: creates a PENDING customer and a PENDING_OTP_VERIFICATION session, and sends a 6-digit code by SMS', async () => {
    const mobile = newMobileNumber();
    const res = await post('/onboarding/sessions', { mobile_number: mobile, locale: 'en', external_reference: 'cust-1' }, { token: b.token });
    expect(res.status).to.equal(201);
    expect(res.body).to.include({ status: 'PENDING_OTP_VERIFICATION', mobile_number: mobile, locale: 'en', status_reason: null, otp_resends_remaining: 3 });
    expect(new Date(res.body.expires_at).getTime() - new Date(res.body.created_at).getTime()).to.be.closeTo(24 * 3600_000, 5_000);
    const customer = await db()('customers').where({ id: res.body.customer_id, business_id: b.id }).first();
    expect(customer).to.include({ business_id: b.id, status: 'PENDING', mobile_number: mobile, external_reference: 'cust-1' });
    const code = await latestOtp(b, mobile);
    expect(JSON.stringify(res.body)).not.to.include(code);
    const stored = await db()('otp_operations').where({ business_id: b.id, mobile_number: mobile }).first();
    expect(stored.code_hash).to.match(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.to.include(`"${code}"`);
  });

  it('sends the message in Arabic when no locale is given', async () => {
    const mobile = newMobileNumber();
    const res = await post('/onboarding/sessions', { mobile_number: mobile }, { token: b.token });
    expect(res.body.locale).to.equal('ar');
    const sms = await get(`/testhelpers/sms-messages?mobile_number=${mobile}`, { token: b.token });
    expect(sms.body.data[0].text).to.match(/رمز التحقق/);
  });

  it('replaces a live session of the same mobile number (CANCELLED, SUPERSEDED; its customer INACTIVE)', async () => {
    const first = await startSession(b);
    const second = await startSession(b, { mobile_number: first.mobile_number });
    const old = await get(`/onboarding/sessions/${first.session_id}`, { token: b.token });
    expect(old.body).to.include({ status: 'CANCELLED', status_reason: 'SUPERSEDED' });
    expect((await db()('customers').where({ id: first.customer_id, business_id: b.id }).first()).status).to.equal('INACTIVE');
    expect((await get(`/onboarding/sessions/${second.session_id}`, { token: b.token })).body.status).to.equal('PENDING_OTP_VERIFICATION');
  });

  it('400 VALIDATION_ERROR naming mobile_number for a number with a plus sign', async () => {
    expectValidation(await post('/onboarding/sessions', { mobile_number: '+966501234567' }, { token: b.token }), '/mobile_number');
  });

  it('503 SERVICE_UNAVAILABLE when the SMS provider is down, with nothing written; the same request then succeeds', async () => {
    const mobile = newMobileNumber();
    await providerOutage(b, 'SMS', 1);
    const down = await post('/onboarding/sessions', { mobile_number: mobile }, { token: b.token });
    expectProblem(down, 503, 'SERVICE_UNAVAILABLE');
    expect(Number(down.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(await db()('customers').where({ business_id: b.id, mobile_number: mobile })).to.have.length(0);
    expect(await db()('onboarding_sessions').where({ business_id: b.id, mobile_number: mobile })).to.have.length(0);
    expect(await db()('otp_operations').where({ business_id: b.id, mobile_number: mobile })).to.have.length(0);
    const again = await post('/onboarding/sessions', { mobile_number: mobile }, { token: b.token });
    expect(again.status).to.equal(201);
  });
});

describe('onboarding: verifyOnboardingOtp', () => {
  let b: TestBusiness;
  before(async () => {
    b = await newBusiness();
  });

  it('200: the right code moves the session to OTP_VERIFIED; sent again it is 412 OTP_OPERATION_WRONG_STATUS', async () => {
    const session = await startSession(b);
    const code = await latestOtp(b, session.mobile_number);
    const res = await verify(b, session.session_id, code);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ status: 'OTP_VERIFIED', otp_expires_at: null, otp_resend_available_at: null });
    expectProblem(await verify(b, session.session_id, code), 412, 'OTP_OPERATION_WRONG_STATUS');
    expect((await get(`/onboarding/sessions/${session.session_id}`, { token: b.token })).body.status).to.equal('OTP_VERIFIED');
  });

  it('400 INVALID_OTP_FORMAT for anything but 6 digits, not counted as an attempt', async () => {
    const session = await startSession(b);
    for (const otp of ['12345', '1234567', 'abcdef', '12 456']) expectProblem(await verify(b, session.session_id, otp), 400, 'INVALID_OTP_FORMAT');
    const op = await db()('otp_operations').where({ business_id: b.id, mobile_number: session.mobile_number }).first();
    expect(op.attempts).to.equal(0);
    expect((await verify(b, session.session_id, await latestOtp(b, session.mobile_number))).status).to.equal(200);
  });

  it('400 OTP_INCORRECT with the attempts left, then OTP_MAX_ATTEMPTS_REACHED on the fifth, after which even the right code is 412 (the operation failed)', async () => {
    const session = await startSession(b);
    const code = await latestOtp(b, session.mobile_number);
    for (let left = 4; left >= 1; left--) {
      const res = await verify(b, session.session_id, otherCode(code));
      expectProblem(res, 400, 'OTP_INCORRECT');
      expect(res.body.detail).to.include(`${left} attempt`);
    }
    expectProblem(await verify(b, session.session_id, otherCode(code)), 400, 'OTP_MAX_ATTEMPTS_REACHED');
    expectProblem(await verify(b, session.session_id, code), 412, 'OTP_OPERATION_WRONG_STATUS');
    expect((await get(`/onboarding/sessions/${session.session_id}`, { token: b.token })).body.status).to.equal('PENDING_OTP_VERIFICATION');
  });

  it('400 OTP_EXPIRED five minutes after the code was sent (business clock)', async () => {
    const other = await newBusiness();
    const session = await startSession(other);
    const code = await latestOtp(other, session.mobile_number);
    await advanceClock(other, 301);
    expectProblem(await verify(other, session.session_id, code), 400, 'OTP_EXPIRED');
    expectProblem(await verify(other, session.session_id, code), 400, 'OTP_EXPIRED');
  });

  it('404 ONBOARDING_SESSION_NOT_FOUND for an unknown session and for another business\'s', async () => {
    const session = await startSession(b);
    const other = await newBusiness();
    expectProblem(await verify(other, session.session_id, '123456'), 404, 'ONBOARDING_SESSION_NOT_FOUND');
    expectProblem(await verify(b, '00000000-0000-4000-8000-000000000000', '123456'), 404, 'ONBOARDING_SESSION_NOT_FOUND');
  });

  it('412 OTP_OPERATION_WRONG_STATUS for the verified code sent again after the session ended COMPLETED, FAILED or CANCELLED; nothing changes', async () => {
    const verifiedWithCode = async () => {
      const session = await startSession(b);
      const code = await latestOtp(b, session.mobile_number);
      expect((await verify(b, session.session_id, code)).status).to.equal(200);
      return { session, code };
    };
    const completed = await verifiedWithCode();
    expect((await initiateIdentity(b, completed.session.session_id)).body.status).to.equal('SCREENING_PASSED');
    expect((await post('/onboarding/complete-customer-information', validInformation(completed.session.customer_id), { token: b.token })).status).to.equal(200);
    const failed = await verifiedWithCode();
    expect((await initiateIdentity(b, failed.session.session_id, '1000000002')).body.status).to.equal('FAILED');
    const cancelled = await verifiedWithCode();
    await cancel(b, cancelled.session.session_id);
    for (const [{ session, code }, state] of [[completed, 'COMPLETED'], [failed, 'FAILED'], [cancelled, 'CANCELLED']] as const) {
      const before = (await get(`/onboarding/sessions/${session.session_id}`, { token: b.token })).body;
      expect(before.status).to.equal(state);
      expectProblem(await verify(b, session.session_id, code), 412, 'OTP_OPERATION_WRONG_STATUS');
      expectProblem(await verify(b, session.session_id, otherCode(code)), 412, 'OTP_OPERATION_WRONG_STATUS');
      expect((await get(`/onboarding/sessions/${session.session_id}`, { token: b.token })).body).to.deep.equal(before);
    }
  });

  it('409 ONBOARDING_STATE_CANCELLED and ONBOARDING_STATE_EXPIRED for a session that ended with its code pending; nothing changes', async () => {
    const cancelled = await startSession(b);
    await cancel(b, cancelled.session_id);
    expectProblem(await verify(b, cancelled.session_id, await latestOtp(b, cancelled.mobile_number)), 409, 'ONBOARDING_STATE_CANCELLED');
    const other = await newBusiness();
    const expired = await startSession(other);
    await advanceClock(other, 24 * 3600);
    expectProblem(await verify(other, expired.session_id, await latestOtp(other, expired.mobile_number)), 409, 'ONBOARDING_STATE_EXPIRED');
    expect((await db()('otp_operations').where({ business_id: other.id }).first()).attempts).to.equal(0);
  });
});

describe('onboarding: parallel wrong guesses', () => {
  it('20 wrong codes at once are counted up to the cap of 5 and no further; the right code is then refused (412)', async () => {
    const b = await newBusiness();
    const session = await startSession(b);
    const code = await latestOtp(b, session.mobile_number);
    const results = await Promise.all(Array.from({ length: 20 }, () => verify(b, session.session_id, otherCode(code))));
    const codes = results.map((r) => r.body.code);
    expect(codes.filter((c) => c === 'OTP_INCORRECT')).to.have.length(4);
    expect(codes.filter((c) => c === 'OTP_MAX_ATTEMPTS_REACHED')).to.have.length(1);
    expect(codes.filter((c) => c === 'OTP_OPERATION_WRONG_STATUS')).to.have.length(15);
    const op = await db()('otp_operations').where({ business_id: b.id, mobile_number: session.mobile_number }).first();
    expect(op).to.include({ attempts: 5, status: 'FAILED' });
    expectProblem(await verify(b, session.session_id, code), 412, 'OTP_OPERATION_WRONG_STATUS');
  });
});

describe('onboarding: resendOnboardingOtp', () => {
  let b: TestBusiness;
  before(async () => {
    b = await newBusiness();
  });

  it('429 OTP_RESEND_TOO_SOON with Retry-After inside the cool-down; after it a new code (in the new locale) replaces the old one', async () => {
    const session = await startSession(b);
    const first = await latestOtp(b, session.mobile_number);
    const soon = await resend(b, session.session_id);
    expectProblem(soon, 429, 'OTP_RESEND_TOO_SOON');
    expect(Number(soon.headers.get('retry-after'))).to.be.within(1, 60);
    await advanceClock(b, 61);
    const res = await resend(b, session.session_id, { locale: 'ar' });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ status: 'PENDING_OTP_VERIFICATION', locale: 'ar', otp_resends_remaining: 2 });
    const sms = await get(`/testhelpers/sms-messages?mobile_number=${session.mobile_number}`, { token: b.token });
    expect(sms.body.data).to.have.length(2);
    expect(sms.body.data[0].text).to.match(/رمز التحقق/);
    const second = await latestOtp(b, session.mobile_number);
    if (second !== first) expectProblem(await verify(b, session.session_id, first), 400, 'OTP_INCORRECT');
    expect((await verify(b, session.session_id, second)).status).to.equal(200);
  });

  it('gives a fresh code after the attempts were used up', async () => {
    const other = await newBusiness();
    const session = await startSession(other);
    const code = await latestOtp(other, session.mobile_number);
    for (let i = 0; i < 5; i++) await verify(other, session.session_id, otherCode(code));
    await advanceClock(other, 61);
    expect((await resend(other, session.session_id)).status).to.equal(200);
    expect((await verify(other, session.session_id, await latestOtp(other, session.mobile_number))).status).to.equal(200);
  });

  it('422 OTP_RESEND_LIMIT_REACHED after three resends', async () => {
    const other = await newBusiness();
    const session = await startSession(other);
    for (let i = 0; i < 3; i++) {
      await advanceClock(other, 61);
      expect((await resend(other, session.session_id)).status).to.equal(200);
    }
    await advanceClock(other, 61);
    expectProblem(await resend(other, session.session_id), 422, 'OTP_RESEND_LIMIT_REACHED');
  });

  it('409 ONBOARDING_STATE_OTP_VERIFIED, _CANCELLED and _EXPIRED when the session no longer waits for a code', async () => {
    const verified = await verifiedSession(b);
    expectProblem(await resend(b, verified.session_id), 409, 'ONBOARDING_STATE_OTP_VERIFIED');
    const cancelled = await startSession(b);
    await cancel(b, cancelled.session_id);
    expectProblem(await resend(b, cancelled.session_id), 409, 'ONBOARDING_STATE_CANCELLED');
    const other = await newBusiness();
    const expired = await startSession(other);
    await advanceClock(other, 24 * 3600 + 1);
    expectProblem(await resend(other, expired.session_id), 409, 'ONBOARDING_STATE_EXPIRED');
  });

  it('404 ONBOARDING_SESSION_NOT_FOUND for another business\'s session', async () => {
    const session = await startSession(b);
    expectProblem(await resend(await newBusiness(), session.session_id), 404, 'ONBOARDING_SESSION_NOT_FOUND');
  });

  it('503 SERVICE_UNAVAILABLE when the SMS provider is down; the previous code stays valid', async () => {
    const other = await newBusiness();
    const session = await startSession(other);
    const code = await latestOtp(other, session.mobile_number);
    await advanceClock(other, 61);
    await providerOutage(other, 'SMS', 1);
    expectProblem(await resend(other, session.session_id), 503, 'SERVICE_UNAVAILABLE');
    expect((await get(`/onboarding/sessions/${session.session_id}`, { token: other.token })).body.otp_resends_remaining).to.equal(3);
    expect((await verify(other, session.session_id, code)).status).to.equal(200);
  });
});

describe('onboarding: getOnboardingSession and cancelOnboardingSession', () => {
  let b: TestBusiness;
  before(async () => {
    b = await newBusiness();
  });

  it('getOnboardingSession: 200 with the session; 404 for another business\'s', async () => {
    const session = await startSession(b);
    const res = await get(`/onboarding/sessions/${session.session_id}`, { token: b.token });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(session);
    expectProblem(await get(`/onboarding/sessions/${session.session_id}`, { token: (await newBusiness()).token }), 404, 'ONBOARDING_SESSION_NOT_FOUND');
  });

  it('getOnboardingSession: EXPIRED 24 hours after the start on the business clock, and the customer INACTIVE; other businesses unaffected', async () => {
    const other = await newBusiness();
    const mine = await startSession(other);
    const theirs = await startSession(b);
    await advanceClock(other, 24 * 3600);
    expect((await get(`/onboarding/sessions/${mine.session_id}`, { token: other.token })).body.status).to.equal('EXPIRED');
    expect((await db()('customers').where({ id: mine.customer_id, business_id: other.id }).first()).status).to.equal('INACTIVE');
    expect((await get(`/onboarding/sessions/${theirs.session_id}`, { token: b.token })).body.status).to.equal('PENDING_OTP_VERIFICATION');
    expect((await verify(b, theirs.session_id, await latestOtp(b, theirs.mobile_number))).status).to.equal(200);
  });

  it('cancelOnboardingSession: 200 CANCELLED with the reason, the customer INACTIVE; 409 ONBOARDING_STATE_CANCELLED the second time', async () => {
    const session = await verifiedSession(b);
    const res = await post(`/onboarding/sessions/${session.session_id}/cancel`, { reason: 'BUSINESS_DECISION' }, { token: b.token });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ status: 'CANCELLED', status_reason: 'BUSINESS_DECISION' });
    expect((await db()('customers').where({ id: session.customer_id, business_id: b.id }).first()).status).to.equal('INACTIVE');
    expectProblem(await cancel(b, session.session_id), 409, 'ONBOARDING_STATE_CANCELLED');
  });

  it('cancelOnboardingSession: 409 ONBOARDING_STATE_EXPIRED; 404 for another business\'s session', async () => {
    const other = await newBusiness();
    const session = await startSession(other);
    expectProblem(await cancel(b, session.session_id), 404, 'ONBOARDING_SESSION_NOT_FOUND');
    await advanceClock(other, 24 * 3600);
    expectProblem(await cancel(other, session.session_id), 409, 'ONBOARDING_STATE_EXPIRED');
  });
});

describe('onboarding: codes stay secret', () => {
  it('no code appears in a response or in the service\'s log, failures included', async () => {
    const bodies: string[] = [];
    let code = '';
    const lines = await captureLogs(async () => {
      const b = await newBusiness();
      const session = await startSession(b);
      bodies.push(JSON.stringify(session));
      code = await latestOtp(b, session.mobile_number);
      bodies.push(JSON.stringify((await verify(b, session.session_id, otherCode(code))).body));
      await providerOutage(b, 'SMS', 1);
      await advanceClock(b, 61);
      bodies.push(JSON.stringify((await resend(b, session.session_id)).body));
      bodies.push(JSON.stringify((await verify(b, session.session_id, code)).body));
      bodies.push(JSON.stringify((await verify(b, session.session_id, code)).body));
    });
    expect(lines.some((l) => l.includes('provider SMS unavailable')), 'the outage was logged').to.equal(true);
    for (const text of [...bodies, ...lines]) expect(text).not.to.include(code);
  });
});
