/**
 * Customers and their onboarding, built through the public API (the sandbox's SMS
 * outbox gives the OTP): fresh mobile numbers and national ids, onboarding sessions at
 * each step (started, OTP verified, screened) and ACTIVE customers with a wallet. Each
 * helper sends its requests as the `Caller` it is given, so that a customer can be
 * onboarded through another instance than the main service (`{ token, baseUrl }`).
 */
import { randomInt } from 'node:crypto';
import { expect } from 'chai';
import { newEventId, providerReference, sendCallback } from './callbacks.js';
import { get, post } from './client.js';
import type { Caller, TestBusiness } from './fixtures.js';
import { validInformation } from './kyc.js';
import { latestOtp } from './sandbox.js';

// The KYC information lives in ./kyc.ts, which has no dependency (the bulk-payout benchmark uses it too).
export { validInformation };

/** A fresh Saudi-style mobile number (966 5…), never one of the sandbox's test numbers. */
export const newMobileNumber = (): string => `9665${String(randomInt(10_000_000, 99_999_999))}`;

/** A fresh valid national id (10 digits, starting with 1), never one of the sandbox's test ids. */
export const newNationalId = (): string => `1${String(randomInt(100_000_000, 999_999_999))}`;

/** Starts onboarding `mobile_number` (a fresh one by default) in locale `en` unless `body` says otherwise; asserts 201, returns the session. */
export async function startSession(b: Caller, body: Record<string, unknown> = {}): Promise<any> {
  const res = await post('/onboarding/sessions', { mobile_number: newMobileNumber(), locale: 'en', ...body }, { token: b.token, baseUrl: b.baseUrl });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body;
}

/** A session whose OTP was verified (OTP_VERIFIED); asserts 200 and returns the session. */
export async function verifiedSession(b: Caller, body: Record<string, unknown> = {}): Promise<any> {
  const session = await startSession(b, body);
  const otp = await latestOtp(b, session.mobile_number);
  const res = await post(`/onboarding/sessions/${session.session_id}/verify-otp`, { otp }, { token: b.token, baseUrl: b.baseUrl });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** Initiates identity verification of a session; returns the response (not asserted). */
export const initiateIdentity = (b: Caller, sessionId: string, nationalId = newNationalId(), dateOfBirth = '1990-04-15') =>
  post(`/onboarding/sessions/${sessionId}/identity-verification`, { national_id: nationalId, date_of_birth: dateOfBirth }, { token: b.token, baseUrl: b.baseUrl });

/**
 * A session verified by OTP and identity, then screened (by the sandbox: SCREENING_PASSED
 * unless `nationalId` is one of its test ids that says otherwise); asserts the
 * verification's 200 and returns the session.
 */
export async function screenedSession(b: Caller, nationalId = newNationalId(), body: Record<string, unknown> = {}): Promise<any> {
  const session = await verifiedSession(b, body);
  const res = await initiateIdentity(b, session.session_id, nationalId);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/**
 * Completes the onboarding of a screened session's customer with valid KYC information:
 * asserts the 200 and the status ACTIVE; returns the customer as getCustomer answers it
 * (`id`, `mobile_number`, `wallet_id`, …).
 */
async function completedCustomer(b: Caller, customerId: string): Promise<any> {
  const res = await post('/onboarding/complete-customer-information', validInformation(customerId), { token: b.token, baseUrl: b.baseUrl });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  const customer = await get(`/customers/${customerId}`, { token: b.token, baseUrl: b.baseUrl });
  expect(customer.body.status).to.equal('ACTIVE');
  return customer.body;
}

/**
 * A customer onboarded to the end (ACTIVE, with a wallet), as the README does: asserts
 * each step (SCREENING_PASSED, then completedCustomer's checks); returns the customer.
 */
export async function activeCustomer(b: Caller, body: Record<string, unknown> = {}, nationalId = newNationalId()): Promise<any> {
  const session = await screenedSession(b, nationalId, body);
  expect(session.status, JSON.stringify(session)).to.equal('SCREENING_PASSED');
  return completedCustomer(b, session.customer_id);
}

/** The sandbox's test national id whose identity result the sandbox never delivers (a provider that answers late). */
const UNANSWERED_NATIONAL_ID = '1000000006';

/**
 * An ACTIVE customer whose national id is `nationalId`, which may be the sandbox's test id
 * whose identity result is never delivered: the approval is then sent here, signed as the
 * provider would (asserts APPLIED), before completedCustomer.
 */
export async function activeCustomerWithId(b: TestBusiness, nationalId: string): Promise<any> {
  if (nationalId !== UNANSWERED_NATIONAL_ID) return activeCustomer(b, {}, nationalId);
  const session = await screenedSession(b, nationalId);
  const reference = await providerReference(session.session_id, 'IDENTITY');
  const approval = { event_id: newEventId(), reference, outcome: 'APPROVED', full_name: 'Manual Approval', rejection_reason: null, occurred_at: new Date().toISOString() };
  expect((await sendCallback('/callbacks/identity-verification', approval)).body.result).to.equal('APPLIED');
  return completedCustomer(b, session.customer_id);
}
