/**
 * Mobile number change from the profile settings (seed E7): the steps, the
 * ownership check (sandbox numbers and the signed callback), the code, the
 * 24-hour rule on the business clock, number uniqueness and the notice to the
 * old number.
 */
import { expect } from 'chai';
import { expectProblem, expectValidation } from '../support/assertions.js';
import { newEventId, providerReference, sendCallback } from '../support/callbacks.js';
import { get, post } from '../support/client.js';
import {
  activeCustomer,
  newMobileNumber,
  screenedSession,
  startSession,
  validInformation,
} from '../support/customers.js';
import { newBusiness, type TestBusiness } from '../support/fixtures.js';
import { changeFromProfile, changeStatus, ownershipResult, verifyChange } from '../support/mobileChange.js';
import { advanceClock, latestOtp, otherCode, providerOutage } from '../support/sandbox.js';
import { running } from '../support/service.js';

const db = () => running().db;
const customerOf = (b: TestBusiness, id: string) => get(`/customers/${id}`, { token: b.token }).then((r) => r.body);
const messagesTo = (b: TestBusiness, mobile: string) =>
  get(`/testhelpers/sms-messages?mobile_number=${mobile}`, { token: b.token }).then((r) => r.body.data.map((m: { text: string }) => m.text));

describe('changeMobileNumber (E7) and verifyMobileNumberChangeOtp', () => {
  let b: TestBusiness;
  before(async () => {
    b = await newBusiness();
  });

  it('200 with exactly {session_id, customer_id, status}; a code to the new number; the completed change moves the number and tells the old one', async () => {
    const customer = await activeCustomer(b);
    const newNumber = newMobileNumber();
    const res = await changeFromProfile(b, customer.id, newNumber, 'en');
    expect(res.status).to.equal(200);
    expect(Object.keys(res.body).sort()).to.deep.equal(['customer_id', 'session_id', 'status']);
    expect(res.body).to.include({ customer_id: customer.id, status: 'PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION' });
    const pending = await changeStatus(b, 'profile', res.body.session_id);
    expect(pending).to.include({ status: 'PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION', ownership_check: 'CONFIRMED', new_mobile_number: newNumber, completed_at: null });

    const code = await latestOtp(b, newNumber);
    const done = await verifyChange(b, 'profile', res.body.session_id, code);
    expect(done.status).to.equal(200);
    expect(done.body).to.include({ status: 'COMPLETED', status_reason: null });
    const changed = await customerOf(b, customer.id);
    expect(changed.mobile_number).to.equal(newNumber);
    expect(changed.mobile_number_changed_at).to.equal(done.body.completed_at);
    const notice = (await messagesTo(b, customer.mobile_number))[0];
    expect(notice).to.include(`********${newNumber.slice(-4)}`).and.not.include(newNumber);
    // The seed's OTP rule also holds once the session ended: 412, and nothing changes.
    expectProblem(await verifyChange(b, 'profile', res.body.session_id, code), 412, 'OTP_OPERATION_WRONG_STATUS');
    expectProblem(await verifyChange(b, 'profile', res.body.session_id, otherCode(code)), 412, 'OTP_OPERATION_WRONG_STATUS');
    expect(await changeStatus(b, 'profile', res.body.session_id)).to.include({ status: 'COMPLETED', completed_at: done.body.completed_at });
    expect((await customerOf(b, customer.id)).mobile_number).to.equal(newNumber);
  });

  it('429 MOBILE_NUMBER_CHANGE_TOO_SOON within 24 hours of the last change (Retry-After, next_change_allowed_at); allowed again after them', async () => {
    const own = await newBusiness();
    const customer = await activeCustomer(own);
    const first = await changeFromProfile(own, customer.id, newMobileNumber());
    const done = await verifyChange(own, 'profile', first.body.session_id, await latestOtp(own, (await changeStatus(own, 'profile', first.body.session_id)).new_mobile_number));
    const allowedAt = new Date(new Date(done.body.completed_at).getTime() + 24 * 3600_000).toISOString();

    await advanceClock(own, 23 * 3600);
    const sessions = await db()('mobile_number_change_sessions').where({ customer_id: customer.id, business_id: own.id }).count('* as n').first();
    const refused = await changeFromProfile(own, customer.id, newMobileNumber());
    expectProblem(refused, 429, 'MOBILE_NUMBER_CHANGE_TOO_SOON');
    expect(refused.body.next_change_allowed_at).to.equal(allowedAt);
    expect(Number(refused.headers.get('retry-after'))).to.be.within(3500, 3601);
    expect(await db()('mobile_number_change_sessions').where({ customer_id: customer.id, business_id: own.id }).count('* as n').first()).to.deep.equal(sessions);

    // Another business's customers are not bound by this business's clock or changes.
    const other = await activeCustomer(b);
    expect((await changeFromProfile(b, other.id, newMobileNumber())).status).to.equal(200);

    await advanceClock(own, 3600);
    expect((await changeFromProfile(own, customer.id, newMobileNumber())).status).to.equal(200);
  });

  it('404 CUSTOMER_NOT_FOUND for an unknown customer and another business\'s; 409 CUSTOMER_NOT_ACTIVE while onboarding', async () => {
    const customer = await activeCustomer(b);
    expectProblem(await changeFromProfile(await newBusiness(), customer.id, newMobileNumber()), 404, 'CUSTOMER_NOT_FOUND');
    expectProblem(await changeFromProfile(b, '00000000-0000-4000-8000-000000000000', newMobileNumber()), 404, 'CUSTOMER_NOT_FOUND');
    const onboarding = await startSession(b);
    expectProblem(await changeFromProfile(b, onboarding.customer_id, newMobileNumber()), 409, 'CUSTOMER_NOT_ACTIVE');
  });

  it('400 VALIDATION_ERROR naming new_mobile_number for the current number; 409 MOBILE_NUMBER_TAKEN for another active customer\'s', async () => {
    const customer = await activeCustomer(b);
    const other = await activeCustomer(b);
    expectValidation(await changeFromProfile(b, customer.id, customer.mobile_number), '/new_mobile_number');
    expectProblem(await changeFromProfile(b, customer.id, other.mobile_number), 409, 'MOBILE_NUMBER_TAKEN');
    expect(await db()('mobile_number_change_sessions').where({ customer_id: customer.id, business_id: b.id })).to.have.length(0);
  });

  it('sandbox number 966500000002: the ownership check rejects it → FAILED (OWNERSHIP_REJECTED); the code is then refused with 409', async () => {
    const customer = await activeCustomer(b);
    const res = await changeFromProfile(b, customer.id, '966500000002');
    expect(res.body.status).to.equal('PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION');
    expect(await changeStatus(b, 'profile', res.body.session_id)).to.include({ status: 'FAILED', status_reason: 'OWNERSHIP_REJECTED', ownership_check: 'REJECTED' });
    expectProblem(await verifyChange(b, 'profile', res.body.session_id, await latestOtp(b, '966500000002')), 409, 'MOBILE_CHANGE_STATE_FAILED');
    expect((await customerOf(b, customer.id)).mobile_number).to.equal(customer.mobile_number);
  });

  it('503 SERVICE_UNAVAILABLE (nothing written) for sandbox number 966500000003 and during SMS or identity outages; the same request then succeeds', async () => {
    const customer = await activeCustomer(b);
    const ownershipChecks = () => db()('provider_requests').where({ business_id: b.id, kind: 'MOBILE_OWNERSHIP' }).count('* as n').first();
    const checksBefore = await ownershipChecks();
    expectProblem(await changeFromProfile(b, customer.id, '966500000003'), 503, 'SERVICE_UNAVAILABLE');
    const newNumber = newMobileNumber();
    for (const provider of ['IDENTITY_VERIFICATION', 'SMS']) {
      await providerOutage(b, provider, 1);
      expectProblem(await changeFromProfile(b, customer.id, newNumber), 503, 'SERVICE_UNAVAILABLE');
    }
    expect(await db()('mobile_number_change_sessions').where({ customer_id: customer.id, business_id: b.id })).to.have.length(0);
    expect(await ownershipChecks()).to.deep.equal(checksBefore);
    expect(await messagesTo(b, newNumber)).to.have.length(0);
    expect((await changeFromProfile(b, customer.id, newNumber)).status).to.equal(200);
  });

  it('without the ownership result yet (966500000006) the verified code awaits it; the signed CONFIRMED callback completes the change (503 first when SMS is down)', async () => {
    const customer = await activeCustomer(b);
    const res = await changeFromProfile(b, customer.id, '966500000006');
    const verified = await verifyChange(b, 'profile', res.body.session_id, await latestOtp(b, '966500000006'));
    expect(verified.body).to.include({ status: 'AWAITING_OWNERSHIP_CHECK', ownership_check: 'PENDING' });
    expectProblem(await verifyChange(b, 'profile', res.body.session_id, await latestOtp(b, '966500000006')), 412, 'OTP_OPERATION_WRONG_STATUS');
    expect((await customerOf(b, customer.id)).mobile_number).to.equal(customer.mobile_number);

    await providerOutage(b, 'SMS', 1);
    const eventId = newEventId();
    expectProblem(await ownershipResult(res.body.session_id, 'CONFIRMED', eventId), 503, 'SERVICE_UNAVAILABLE');
    expect((await changeStatus(b, 'profile', res.body.session_id)).status).to.equal('AWAITING_OWNERSHIP_CHECK');
    const applied = await ownershipResult(res.body.session_id, 'CONFIRMED', eventId);
    expect(applied.body).to.deep.equal({ event_id: eventId, result: 'APPLIED' });
    expect(await changeStatus(b, 'profile', res.body.session_id)).to.include({ status: 'COMPLETED', ownership_check: 'CONFIRMED' });
    expect((await customerOf(b, customer.id)).mobile_number).to.equal('966500000006');
    expectProblem(await ownershipResult(res.body.session_id, 'CONFIRMED', eventId), 409, 'CALLBACK_REPLAYED');
    expect((await ownershipResult(res.body.session_id, 'REJECTED')).body.result).to.equal('IGNORED');
  });

  it('503 SERVICE_UNAVAILABLE from the code when the old number cannot be told: nothing changes, the same code then completes', async () => {
    const customer = await activeCustomer(b);
    const newNumber = newMobileNumber();
    const res = await changeFromProfile(b, customer.id, newNumber);
    const code = await latestOtp(b, newNumber);
    await providerOutage(b, 'SMS', 1);
    expectProblem(await verifyChange(b, 'profile', res.body.session_id, code), 503, 'SERVICE_UNAVAILABLE');
    expect((await changeStatus(b, 'profile', res.body.session_id)).status).to.equal('PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION');
    expect((await customerOf(b, customer.id)).mobile_number).to.equal(customer.mobile_number);
    expect((await verifyChange(b, 'profile', res.body.session_id, code)).body.status).to.equal('COMPLETED');
  });

  it('the code\'s rules: 400 INVALID_OTP_FORMAT, OTP_INCORRECT, then OTP_MAX_ATTEMPTS_REACHED FAILS the session (412 after); OTP_EXPIRED after 5 minutes', async () => {
    const customer = await activeCustomer(b);
    const newNumber = newMobileNumber();
    const res = await changeFromProfile(b, customer.id, newNumber);
    const code = await latestOtp(b, newNumber);
    expectProblem(await verifyChange(b, 'profile', res.body.session_id, '12ab56'), 400, 'INVALID_OTP_FORMAT');
    for (let i = 0; i < 4; i++) expectProblem(await verifyChange(b, 'profile', res.body.session_id, otherCode(code)), 400, 'OTP_INCORRECT');
    expectProblem(await verifyChange(b, 'profile', res.body.session_id, otherCode(code)), 400, 'OTP_MAX_ATTEMPTS_REACHED');
    expect(await changeStatus(b, 'profile', res.body.session_id)).to.include({ status: 'FAILED', status_reason: 'OTP_MAX_ATTEMPTS_REACHED' });
    expectProblem(await verifyChange(b, 'profile', res.body.session_id, code), 412, 'OTP_OPERATION_WRONG_STATUS');

    const own = await newBusiness();
    const late = await activeCustomer(own);
    const lateNumber = newMobileNumber();
    const lateChange = await changeFromProfile(own, late.id, lateNumber);
    const lateCode = await latestOtp(own, lateNumber);
    await advanceClock(own, 301);
    expectProblem(await verifyChange(own, 'profile', lateChange.body.session_id, lateCode), 400, 'OTP_EXPIRED');
  });

  it('a newer change CANCELS the live one (SUPERSEDED, 409 after); 30 minutes later a change is EXPIRED (409 after)', async () => {
    const customer = await activeCustomer(b);
    const first = await changeFromProfile(b, customer.id, newMobileNumber());
    await changeFromProfile(b, customer.id, newMobileNumber());
    expect(await changeStatus(b, 'profile', first.body.session_id)).to.include({ status: 'CANCELLED', status_reason: 'SUPERSEDED' });
    expectProblem(await verifyChange(b, 'profile', first.body.session_id, '000000'), 409, 'MOBILE_CHANGE_STATE_CANCELLED');

    const own = await newBusiness();
    const other = await activeCustomer(own);
    const expiring = await changeFromProfile(own, other.id, newMobileNumber());
    await advanceClock(own, 30 * 60);
    expect((await changeStatus(own, 'profile', expiring.body.session_id)).status).to.equal('EXPIRED');
    expectProblem(await verifyChange(own, 'profile', expiring.body.session_id, '000000'), 409, 'MOBILE_CHANGE_STATE_EXPIRED');
  });

  it('ends FAILED (MOBILE_NUMBER_TAKEN), changing nothing, when another customer took the number first; ended sessions refuse their code with 412', async () => {
    const x = await activeCustomer(b);
    const y = await activeCustomer(b);
    const contested = newMobileNumber();
    const xChange = await changeFromProfile(b, x.id, contested);
    const xCode = await latestOtp(b, contested);
    const yChange = await changeFromProfile(b, y.id, contested);
    expect((await verifyChange(b, 'profile', yChange.body.session_id, await latestOtp(b, contested))).body.status).to.equal('COMPLETED');
    const lost = await verifyChange(b, 'profile', xChange.body.session_id, xCode);
    expect(lost.status).to.equal(200);
    expect(lost.body).to.include({ status: 'FAILED', status_reason: 'MOBILE_NUMBER_TAKEN' });
    expect((await customerOf(b, x.id)).mobile_number).to.equal(x.mobile_number);
    expectProblem(await verifyChange(b, 'profile', yChange.body.session_id, '000000'), 412, 'OTP_OPERATION_WRONG_STATUS');
    expectProblem(await verifyChange(b, 'profile', xChange.body.session_id, xCode), 412, 'OTP_OPERATION_WRONG_STATUS');
  });

  it('completeCustomerInformation: 409 MOBILE_NUMBER_TAKEN when an active customer changed to the number during onboarding', async () => {
    const session = await screenedSession(b);
    const y = await activeCustomer(b);
    const change = await changeFromProfile(b, y.id, session.mobile_number);
    await verifyChange(b, 'profile', change.body.session_id, await latestOtp(b, session.mobile_number));
    expectProblem(await post('/onboarding/complete-customer-information', validInformation(session.customer_id), { token: b.token }), 409, 'MOBILE_NUMBER_TAKEN');
  });

  it('getMobileNumberChangeStatus: 404 for another business\'s session and for a login-screen session', async () => {
    const customer = await activeCustomer(b);
    const res = await changeFromProfile(b, customer.id, newMobileNumber());
    expectProblem(await get(`/profile/change-mobile-number/${res.body.session_id}`, { token: (await newBusiness()).token }), 404, 'MOBILE_NUMBER_CHANGE_SESSION_NOT_FOUND');
    expectProblem(await get(`/login/change-mobile-number/${res.body.session_id}`, { token: b.token }), 404, 'MOBILE_NUMBER_CHANGE_SESSION_NOT_FOUND');
    expectProblem(await verifyChange(b, 'profile', '00000000-0000-4000-8000-000000000000', '123456'), 404, 'MOBILE_NUMBER_CHANGE_SESSION_NOT_FOUND');
  });
});

describe('receiveMobileOwnershipResult', () => {
  it('401 INVALID_SIGNATURE and SIGNATURE_EXPIRED; 404 for an unknown reference; nothing changes', async () => {
    const b = await newBusiness();
    const customer = await activeCustomer(b);
    const res = await changeFromProfile(b, customer.id, '966500000006');
    const body = { event_id: newEventId(), reference: await providerReference(res.body.session_id, 'MOBILE_OWNERSHIP'), outcome: 'REJECTED', occurred_at: new Date().toISOString() };
    expectProblem(await sendCallback('/callbacks/mobile-ownership', body, { signature: 't=1,v1=' + 'a'.repeat(64) }), 401, 'INVALID_SIGNATURE');
    expectProblem(await sendCallback('/callbacks/mobile-ownership', body, { timestamp: Math.floor(Date.now() / 1000) - 400 }), 401, 'SIGNATURE_EXPIRED');
    expectProblem(await sendCallback('/callbacks/mobile-ownership', { ...body, reference: '00000000-0000-4000-8000-000000000000' }), 404, 'CALLBACK_REFERENCE_NOT_FOUND');
    expect((await changeStatus(b, 'profile', res.body.session_id)).status).to.equal('PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION');
  });
});
