/** Fixtures of the customer flows, built through the public API (the sandbox helpers included). */
import { randomInt } from 'node:crypto';
import { expect } from 'chai';
import { get, post } from './client.js';
import type { TestBusiness } from './fixtures.js';

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
