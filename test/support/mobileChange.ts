/** Fixtures of the mobile number change flows, through the public API and the sandbox helpers. */
import { expect } from 'chai';
import { get, post } from './client.js';
import { activeCustomer, newEventId, providerReference, screenedSession, sendCallback, validInformation } from './customers.js';
import type { TestBusiness } from './fixtures.js';

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

/** Initiates the identity verification of a change from the login screen; returns the response. */
export const initiateLoginIdentity = (b: TestBusiness, sessionId: string, nationalId: string) =>
  post(`/login/change-mobile-number/${sessionId}/identity-verification`, { national_id: nationalId, date_of_birth: '1990-04-15' }, { token: b.token });

/**
 * An ACTIVE customer whose national id is `nationalId`, also one of the sandbox's test ids
 * whose identity result is never delivered (the approval is sent here, as the provider would).
 */
export async function activeCustomerWithId(b: TestBusiness, nationalId: string): Promise<any> {
  if (nationalId !== '1000000006') return activeCustomer(b, {}, nationalId);
  const session = await screenedSession(b, nationalId);
  const reference = await providerReference(session.session_id, 'IDENTITY');
  const approval = { event_id: newEventId(), reference, outcome: 'APPROVED', full_name: 'Manual Approval', rejection_reason: null, occurred_at: new Date().toISOString() };
  expect((await sendCallback('/callbacks/identity-verification', approval)).body.result).to.equal('APPLIED');
  expect((await post('/onboarding/complete-customer-information', validInformation(session.customer_id), { token: b.token })).status).to.equal(200);
  return (await get(`/customers/${session.customer_id}`, { token: b.token })).body;
}

/** Sends the ownership check's result for a change session, signed as the provider would. */
export async function ownershipResult(sessionId: string, outcome: 'CONFIRMED' | 'REJECTED', eventId = newEventId()) {
  const reference = await providerReference(sessionId, 'MOBILE_OWNERSHIP');
  return sendCallback('/callbacks/mobile-ownership', { event_id: eventId, reference, outcome, occurred_at: new Date().toISOString() });
}
