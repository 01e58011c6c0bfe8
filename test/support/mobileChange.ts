/**
 * A customer's mobile number change, from the profile settings and from the login screen,
 * through the public API and the sandbox helpers: starting a change, verifying its OTP,
 * reading its session, the login screen's identity verification and the ownership
 * check's callback, and a whole change from the profile settings.
 */
import { expect } from 'chai';
import { get, post } from './client.js';
import { newEventId, providerReference, sendCallback } from './callbacks.js';
import { newMobileNumber } from './customers.js';
import type { TestBusiness } from './fixtures.js';
import { latestOtp } from './sandbox.js';

/** Where a change starts: the profile settings or the login screen (the path's first segment). */
export type Channel = 'profile' | 'login';

/** Starts a change from the profile settings (seed E7); returns the response (not asserted). */
export const changeFromProfile = (b: TestBusiness, customerId: string, newNumber: string, locale?: string) =>
  post('/profile/change-mobile-number', { customer_id: customerId, new_mobile_number: newNumber, ...(locale ? { locale } : {}) }, { token: b.token });

/** Starts a change from the login screen; returns the response (not asserted). */
export const changeFromLogin = (b: TestBusiness, nationalId: string, newNumber: string) =>
  post('/login/change-mobile-number', { national_id: nationalId, new_mobile_number: newNumber }, { token: b.token });

/** Verifies a change's code; returns the response (not asserted). */
export const verifyChange = (b: TestBusiness, channel: Channel, sessionId: string, otp: string) =>
  post(`/${channel}/change-mobile-number/${sessionId}/verify-otp`, { otp }, { token: b.token });

/** Reads a change session; returns the body (asserts 200). */
export async function changeStatus(b: TestBusiness, channel: Channel, sessionId: string): Promise<any> {
  const res = await get(`/${channel}/change-mobile-number/${sessionId}`, { token: b.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** Initiates the identity verification of a change from the login screen; returns the response (not asserted). */
export const initiateLoginIdentity = (b: TestBusiness, sessionId: string, nationalId: string) =>
  post(`/login/change-mobile-number/${sessionId}/identity-verification`, { national_id: nationalId, date_of_birth: '1990-04-15' }, { token: b.token });

/** Sends the ownership check's result for a change session, signed as the provider would; returns the response (not asserted). */
export async function ownershipResult(sessionId: string, outcome: 'CONFIRMED' | 'REJECTED', eventId = newEventId()) {
  const reference = await providerReference(sessionId, 'MOBILE_OWNERSHIP');
  return sendCallback('/callbacks/mobile-ownership', { event_id: eventId, reference, outcome, occurred_at: new Date().toISOString() });
}

/**
 * Changes the customer's mobile number to a fresh one from the profile settings, to the
 * end: asserts the start's 200 and the status COMPLETED after the OTP; returns the new number.
 */
export async function changeNumber(b: TestBusiness, customerId: string): Promise<string> {
  const newNumber = newMobileNumber();
  const started = await changeFromProfile(b, customerId, newNumber);
  expect(started.status, JSON.stringify(started.body)).to.equal(200);
  const done = await verifyChange(b, 'profile', started.body.session_id, await latestOtp(b, newNumber));
  expect(done.body.status, JSON.stringify(done.body)).to.equal('COMPLETED');
  return newNumber;
}
