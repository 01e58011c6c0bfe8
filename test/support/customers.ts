/** Fixtures of the customer flows, built through the public API (the sandbox helpers included). */
import { randomInt, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { get, post, request } from './client.js';
import type { TestBusiness } from './fixtures.js';
import { signatureHeaders } from './operations.js';
import { running } from './service.js';
import { validInformation } from './kyc.js';

/** A fresh Saudi-style mobile number (966 5…), never one of the sandbox's test numbers. */
export const newMobileNumber = (): string => `9665${String(randomInt(10_000_000, 99_999_999))}`;

/** The code of the latest SMS the sandbox sent to `mobileNumber` for the business. */
export async function latestOtp(b: TestBusiness, mobileNumber: string): Promise<string> {
  const res = await get(`/testhelpers/sms-messages?mobile_number=${mobileNumber}&limit=1`, { token: b.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  const code = /\b[0-9]{6}\b/.exec(res.body.data[0]?.text ?? '')?.[0];
  expect(code, `no code in ${JSON.stringify(res.body.data)}`).to.be.a('string');
  return code!;
}

/** A code that is certainly not `code`. */
export const wrongCode = (code: string): string => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

/** Starts onboarding `mobileNumber` (a fresh one by default); asserts 201. */
export async function startSession(b: TestBusiness, body: Record<string, unknown> = {}): Promise<any> {
  const res = await post('/onboarding/sessions', { mobile_number: newMobileNumber(), locale: 'en', ...body }, { token: b.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body;
}

/** A session whose code was verified (OTP_VERIFIED). */
export async function verifiedSession(b: TestBusiness, body: Record<string, unknown> = {}): Promise<any> {
  const session = await startSession(b, body);
  const res = await post(`/onboarding/sessions/${session.session_id}/verify-otp`, { otp: await latestOtp(b, session.mobile_number) }, { token: b.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** Moves the business's sandbox clock forward; asserts 200. */
export async function advanceClock(b: TestBusiness, seconds: number): Promise<void> {
  const res = await post('/testhelpers/clock', { advance_seconds: seconds }, { token: b.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
}

/** Makes the next `failures` calls of the business to `provider` fail; asserts 200. */
export async function providerOutage(b: TestBusiness, provider: string, failures = 1): Promise<void> {
  const res = await post('/testhelpers/provider-outages', { provider, failures }, { token: b.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
}

/** A fresh valid national id (10 digits, starting with 1), never one of the sandbox's test ids. */
export const newNationalId = (): string => `1${String(randomInt(100_000_000, 999_999_999))}`;

/** Initiates identity verification of a session; returns the response (not asserted). */
export const initiateIdentity = (b: TestBusiness, sessionId: string, nationalId = newNationalId(), dateOfBirth = '1990-04-15') =>
  post(`/onboarding/sessions/${sessionId}/identity-verification`, { national_id: nationalId, date_of_birth: dateOfBirth }, { token: b.token });

/** A session verified by OTP and identity, then screened (by the sandbox, SCREENING_PASSED unless `nationalId` says otherwise). */
export async function screenedSession(b: TestBusiness, nationalId = newNationalId(), body: Record<string, unknown> = {}): Promise<any> {
  const session = await verifiedSession(b, body);
  const res = await initiateIdentity(b, session.session_id, nationalId);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

export { validInformation };

/** A customer onboarded to the end (ACTIVE, with a wallet); returns the customer. */
export async function activeCustomer(b: TestBusiness, body: Record<string, unknown> = {}, nationalId = newNationalId()): Promise<any> {
  const session = await screenedSession(b, nationalId, body);
  expect(session.status).to.equal('SCREENING_PASSED');
  const res = await post('/onboarding/complete-customer-information', validInformation(session.customer_id), { token: b.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  const customer = await get(`/customers/${session.customer_id}`, { token: b.token });
  expect(customer.body.status).to.equal('ACTIVE');
  return customer.body;
}

/** The reference of the latest request of `kind` made for a session (what a provider's callback quotes). */
export async function providerReference(sessionId: string, kind: 'IDENTITY' | 'MOBILE_OWNERSHIP' | 'SCREENING'): Promise<string> {
  const row = await running().db('provider_requests').where({ subject_id: sessionId, kind }).orderBy('created_at', 'desc').first('id');
  expect(row, `no ${kind} request for ${sessionId}`).to.not.equal(undefined);
  return row.id;
}

/** Sends a provider callback, signed as the provider would (or with `opts.signature` / at `opts.timestamp`). */
export function sendCallback(
  path: '/callbacks/identity-verification' | '/callbacks/screening' | '/callbacks/mobile-ownership',
  body: Record<string, unknown>,
  opts: { timestamp?: number; signature?: string; baseUrl?: string } = {},
) {
  const provider = path === '/callbacks/screening' ? 'SCREENING' : 'IDENTITY_VERIFICATION';
  const headers = opts.signature !== undefined ? { 'X-Provider-Signature': opts.signature } : signatureHeaders({ signedBy: provider }, body, opts.timestamp);
  return request('POST', path, { body, headers, baseUrl: opts.baseUrl });
}

/** A fresh provider event id. */
export const newEventId = (): string => `evt_${randomUUID().replaceAll('-', '')}`;

/**
 * Onboards an ACTIVE customer of the business of `token` through the service at
 * `baseUrl` (another instance than the main one), as the README does.
 */
export async function onboardAt(baseUrl: string, token: string): Promise<{ id: string; mobile: string; walletId: string }> {
  const mobile = newMobileNumber();
  const session = await post('/onboarding/sessions', { mobile_number: mobile, locale: 'en' }, { token, baseUrl });
  expect(session.status, JSON.stringify(session.body)).to.equal(201);
  const sms = await get(`/testhelpers/sms-messages?mobile_number=${mobile}&limit=1`, { token, baseUrl });
  const otp = /\d{6}/.exec(sms.body.data[0].text)![0];
  const id = session.body.session_id;
  expect((await post(`/onboarding/sessions/${id}/verify-otp`, { otp }, { token, baseUrl })).status).to.equal(200);
  const screened = await post(`/onboarding/sessions/${id}/identity-verification`, { national_id: newNationalId(), date_of_birth: '1990-04-15' }, { token, baseUrl });
  expect(screened.body.status, JSON.stringify(screened.body)).to.equal('SCREENING_PASSED');
  const customerId = session.body.customer_id;
  expect((await post('/onboarding/complete-customer-information', validInformation(customerId), { token, baseUrl })).status).to.equal(200);
  const customer = await get(`/customers/${customerId}`, { token, baseUrl });
  return { id: customerId, mobile, walletId: customer.body.wallet_id };
}
