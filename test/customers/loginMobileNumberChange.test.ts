/**
 * Mobile number change from the login screen: the customer is found by
 * national id, proves the new number with a code and their identity again;
 * and the change session's state machine against its published table.
 */
import { expect } from 'chai';
import { MOBILE_CHANGE_STATES, mobileChangeMachine, type MobileChangeState } from '../../src/customers/mobileNumberChange/states.js';
import { expectProblem, expectValidation } from '../support/assertions.js';
import { newEventId, providerReference, sendCallback } from '../support/callbacks.js';
import { get, type ApiResponse } from '../support/client.js';
import {
  activeCustomer,
  activeCustomerWithId,
  newMobileNumber,
  newNationalId,
  screenedSession,
} from '../support/customers.js';
import { newBusiness, type TestBusiness } from '../support/fixtures.js';
import { changeFromLogin, changeFromProfile, changeStatus, initiateLoginIdentity, verifyChange } from '../support/mobileChange.js';
import { advanceClock, latestOtp, otherCode, providerOutage } from '../support/sandbox.js';
import { running } from '../support/service.js';

const customerOf = (b: TestBusiness, id: string) => get(`/customers/${id}`, { token: b.token }).then((r) => r.body);

/** A login-screen change whose code is verified (PENDING_IDENTITY_VERIFICATION). */
async function verifiedLoginChange(b: TestBusiness, nationalId: string, newNumber = newMobileNumber()): Promise<string> {
  const res = await changeFromLogin(b, nationalId, newNumber);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  const verified = await verifyChange(b, 'login', res.body.session_id, await latestOtp(b, newNumber));
  expect(verified.body.status).to.equal('PENDING_IDENTITY_VERIFICATION');
  return res.body.session_id;
}

describe('mobile number change from the login screen', () => {
  let b: TestBusiness;
  before(async () => {
    b = await newBusiness();
  });

  it('by national id: code, then identity verified again (sandbox), and the change completes; the old number is told', async () => {
    const nationalId = newNationalId();
    const customer = await activeCustomerWithId(b, nationalId);
    const newNumber = newMobileNumber();
    const res = await changeFromLogin(b, nationalId, newNumber);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ session_id: res.body.session_id, customer_id: customer.id, status: 'PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION' });
    const code = await latestOtp(b, newNumber);
    const verified = await verifyChange(b, 'login', res.body.session_id, code);
    expect(verified.body).to.include({ status: 'PENDING_IDENTITY_VERIFICATION', ownership_check: 'CONFIRMED' });
    expectProblem(await verifyChange(b, 'login', res.body.session_id, code), 412, 'OTP_OPERATION_WRONG_STATUS');
    const done = await initiateLoginIdentity(b, res.body.session_id, nationalId);
    expect(done.status).to.equal(200);
    expect(done.body.status).to.equal('COMPLETED');
    expect((await customerOf(b, customer.id)).mobile_number).to.equal(newNumber);
    const notice = await get(`/testhelpers/sms-messages?mobile_number=${customer.mobile_number}&limit=1`, { token: b.token });
    expect(notice.body.data[0].text).to.include(newNumber.slice(-4));
    // The seed's OTP rule also holds once the session ended: 412, and nothing changes.
    expectProblem(await verifyChange(b, 'login', res.body.session_id, code), 412, 'OTP_OPERATION_WRONG_STATUS');
    expect((await changeStatus(b, 'login', res.body.session_id)).status).to.equal('COMPLETED');
    expect((await changeStatus(b, 'login', res.body.session_id)).completed_at).to.be.a('string');
  });

  it('changeMobileNumberFromLogin: 404 CUSTOMER_NOT_FOUND for an unknown national id, or one of a customer still onboarding', async () => {
    expectProblem(await changeFromLogin(b, newNationalId(), newMobileNumber()), 404, 'CUSTOMER_NOT_FOUND');
    const nationalId = newNationalId();
    await screenedSession(b, nationalId);
    expectProblem(await changeFromLogin(b, nationalId, newMobileNumber()), 404, 'CUSTOMER_NOT_FOUND');
  });

  it('changeMobileNumberFromLogin: 400 for the current number, 409 MOBILE_NUMBER_TAKEN, 429 within 24 hours, 503 when a provider is down', async () => {
    const own = await newBusiness();
    const nationalId = newNationalId();
    const customer = await activeCustomerWithId(own, nationalId);
    const other = await activeCustomer(own);
    expectValidation(await changeFromLogin(own, nationalId, customer.mobile_number), '/new_mobile_number');
    expectProblem(await changeFromLogin(own, nationalId, other.mobile_number), 409, 'MOBILE_NUMBER_TAKEN');
    await providerOutage(own, 'SMS', 1);
    expectProblem(await changeFromLogin(own, nationalId, newMobileNumber()), 503, 'SERVICE_UNAVAILABLE');
    const sessionId = await verifiedLoginChange(own, nationalId);
    await initiateLoginIdentity(own, sessionId, nationalId);
    const soon = await changeFromLogin(own, nationalId, newMobileNumber());
    expectProblem(soon, 429, 'MOBILE_NUMBER_CHANGE_TOO_SOON');
    expect(soon.body.next_change_allowed_at).to.be.a('string');
    await advanceClock(own, 24 * 3600);
    expect((await changeFromLogin(own, nationalId, newMobileNumber())).status).to.equal(200);
  });

  it('initiateLoginIdentityVerification: 422 NATIONAL_ID_MISMATCH, 503 during an outage (nothing changes), 404 for a profile session', async () => {
    const nationalId = newNationalId();
    await activeCustomerWithId(b, nationalId);
    const sessionId = await verifiedLoginChange(b, nationalId);
    expectProblem(await initiateLoginIdentity(b, sessionId, newNationalId()), 422, 'NATIONAL_ID_MISMATCH');
    await providerOutage(b, 'IDENTITY_VERIFICATION', 1);
    expectProblem(await initiateLoginIdentity(b, sessionId, nationalId), 503, 'SERVICE_UNAVAILABLE');
    expect((await changeStatus(b, 'login', sessionId)).status).to.equal('PENDING_IDENTITY_VERIFICATION');
    const profile = await changeFromProfile(b, (await activeCustomer(b)).id, newMobileNumber());
    expectProblem(await initiateLoginIdentity(b, profile.body.session_id, nationalId), 404, 'MOBILE_NUMBER_CHANGE_SESSION_NOT_FOUND');
    expectProblem(await get(`/login/change-mobile-number/${sessionId}`, { token: (await newBusiness()).token }), 404, 'MOBILE_NUMBER_CHANGE_SESSION_NOT_FOUND');
    expectProblem(await verifyChange(b, 'login', profile.body.session_id, '123456'), 404, 'MOBILE_NUMBER_CHANGE_SESSION_NOT_FOUND');
  });

  it('verifyLoginMobileNumberChangeOtp: 400 INVALID_OTP_FORMAT (not counted), OTP_INCORRECT, OTP_EXPIRED after 5 minutes', async () => {
    const own = await newBusiness();
    const nationalId = newNationalId();
    await activeCustomerWithId(own, nationalId);
    const newNumber = newMobileNumber();
    const res = await changeFromLogin(own, nationalId, newNumber);
    const code = await latestOtp(own, newNumber);
    expectProblem(await verifyChange(own, 'login', res.body.session_id, '1234567'), 400, 'INVALID_OTP_FORMAT');
    expectProblem(await verifyChange(own, 'login', res.body.session_id, otherCode(code)), 400, 'OTP_INCORRECT');
    await advanceClock(own, 301);
    expectProblem(await verifyChange(own, 'login', res.body.session_id, code), 400, 'OTP_EXPIRED');
    expect((await changeStatus(own, 'login', res.body.session_id)).status).to.equal('PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION');
  });

  it('verifyLoginMobileNumberChangeOtp: the fifth wrong code is 400 OTP_MAX_ATTEMPTS_REACHED and FAILS the change; any later code is 412', async () => {
    const nationalId = newNationalId();
    await activeCustomerWithId(b, nationalId);
    const newNumber = newMobileNumber();
    const res = await changeFromLogin(b, nationalId, newNumber);
    const code = await latestOtp(b, newNumber);
    for (let i = 0; i < 4; i++) expectProblem(await verifyChange(b, 'login', res.body.session_id, otherCode(code)), 400, 'OTP_INCORRECT');
    expectProblem(await verifyChange(b, 'login', res.body.session_id, otherCode(code)), 400, 'OTP_MAX_ATTEMPTS_REACHED');
    expect(await changeStatus(b, 'login', res.body.session_id)).to.include({ status: 'FAILED', status_reason: 'OTP_MAX_ATTEMPTS_REACHED' });
    expectProblem(await verifyChange(b, 'login', res.body.session_id, code), 412, 'OTP_OPERATION_WRONG_STATUS');
  });

  it('the identity provider\'s rejection (signed callback) FAILS the change (IDENTITY_REJECTED); the number stays', async () => {
    const customer = await activeCustomerWithId(b, '1000000006');
    const sessionId = await verifiedLoginChange(b, '1000000006');
    expect((await initiateLoginIdentity(b, sessionId, '1000000006')).body.status).to.equal('IDENTITY_VERIFICATION_IN_PROGRESS');
    const rejection = { event_id: newEventId(), reference: await providerReference(sessionId, 'IDENTITY'), outcome: 'REJECTED', full_name: null, rejection_reason: 'DATA_MISMATCH', occurred_at: new Date().toISOString() };
    expect((await sendCallback('/callbacks/identity-verification', rejection)).body.result).to.equal('APPLIED');
    expect(await changeStatus(b, 'login', sessionId)).to.include({ status: 'FAILED', status_reason: 'IDENTITY_REJECTED' });
    expect((await customerOf(b, customer.id)).mobile_number).to.equal(customer.mobile_number);
  });
});

/** Puts a login-screen change of a new customer of `b` in `state` (EXPIRED in its own business). */
async function loginChangeIn(state: MobileChangeState, b: TestBusiness): Promise<{ business: TestBusiness; sessionId: string; nationalId: string }> {
  const nationalId = state === 'IDENTITY_VERIFICATION_IN_PROGRESS' ? '1000000006' : newNationalId();
  const business = state === 'EXPIRED' ? await newBusiness() : b;
  if (nationalId === '1000000006') {
    const existing = await running().db('customers').where({ business_id: business.id, status: 'ACTIVE', full_name: 'Manual Approval' }).first('id');
    if (!existing) await activeCustomerWithId(business, nationalId);
  } else await activeCustomerWithId(business, nationalId);
  const placed = (sessionId: string) => ({ business, sessionId, nationalId });
  // FAILED by the ownership check's rejection (966500000002), while the code is still pending.
  const newNumber = state === 'AWAITING_OWNERSHIP_CHECK' ? '966500000006' : state === 'FAILED' ? '966500000002' : newMobileNumber();
  if (state === 'PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION' || state === 'EXPIRED' || state === 'CANCELLED' || state === 'FAILED') {
    const res = await changeFromLogin(business, nationalId, newNumber);
    if (state === 'EXPIRED') await advanceClock(business, 30 * 60);
    if (state === 'CANCELLED') await changeFromLogin(business, nationalId, newMobileNumber());
    return placed(res.body.session_id);
  }
  const sessionId = await verifiedLoginChange(business, nationalId, newNumber);
  if (state !== 'PENDING_IDENTITY_VERIFICATION') await initiateLoginIdentity(business, sessionId, nationalId);
  return placed(sessionId);
}

/** The states `loginChangeIn` places before the change's code was verified (every other one, COMPLETED included, is placed after). */
const CODE_PENDING: MobileChangeState[] = ['PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION', 'EXPIRED', 'CANCELLED', 'FAILED'];

describe('mobile number change state machine: every refused step, in every state', function () {
  this.timeout(120_000);
  let b: TestBusiness;
  const placed = new Map<MobileChangeState, Awaited<ReturnType<typeof loginChangeIn>>>();
  before(async () => {
    b = await newBusiness();
    for (const state of MOBILE_CHANGE_STATES) placed.set(state, await loginChangeIn(state, b));
  });

  const steps: { name: string; event: 'VERIFY_OTP' | 'INITIATE_IDENTITY_VERIFICATION'; send: (p: Awaited<ReturnType<typeof loginChangeIn>>) => Promise<ApiResponse> }[] = [
    { name: 'verifyLoginMobileNumberChangeOtp', event: 'VERIFY_OTP', send: (p) => verifyChange(p.business, 'login', p.sessionId, '000000') },
    { name: 'initiateLoginIdentityVerification', event: 'INITIATE_IDENTITY_VERIFICATION', send: (p) => initiateLoginIdentity(p.business, p.sessionId, p.nationalId) },
  ];

  for (const state of MOBILE_CHANGE_STATES) {
    it(`${state}: each step the table does not allow is refused and changes nothing`, async () => {
      const p = placed.get(state)!;
      expect((await changeStatus(p.business, 'login', p.sessionId)).status, 'placed').to.equal(state);
      for (const step of steps.filter((s) => !mobileChangeMachine.allows(state, s.event))) {
        const before = await changeStatus(p.business, 'login', p.sessionId);
        const res = await step.send(p);
        // Verifying a code whose operation completed or failed is the OTP rule's 412 in any state.
        const expected = step.event === 'VERIFY_OTP' && !CODE_PENDING.includes(state) ? [412, 'OTP_OPERATION_WRONG_STATUS'] : [409, `MOBILE_CHANGE_STATE_${state}`];
        expect([res.status, res.body.code], `${step.name} in ${state}: ${JSON.stringify(res.body)}`).to.deep.equal(expected);
        expect(await changeStatus(p.business, 'login', p.sessionId), `${step.name} in ${state}`).to.deep.equal(before);
      }
    });
  }
});
