/**
 * The core API's sandbox controls of a business (`/testhelpers/…` shared by every
 * capability): the SMS messages the sandbox "sent" and the OTP in them, the business's
 * sandbox clock, and provider outages. Each capability's own sandbox helpers (top-ups,
 * payout outcomes, card simulator) stay with that capability's fixtures.
 */
import { expect } from 'chai';
import { get, post } from './client.js';
import type { Caller } from './fixtures.js';

/**
 * The OTP of `digits` digits (6 by default; card issuance sends 4) in the latest SMS the
 * sandbox sent to `mobileNumber` for the business. Asserts the listing's 200 and that the
 * message holds such a code.
 */
export async function latestOtp(b: Caller, mobileNumber: string, digits: 4 | 6 = 6): Promise<string> {
  const res = await get(`/testhelpers/sms-messages?mobile_number=${mobileNumber}&limit=1`, { token: b.token, baseUrl: b.baseUrl });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  const code = new RegExp(`\\b[0-9]{${digits}}\\b`).exec(res.body.data[0]?.text ?? '')?.[0];
  expect(code, `no ${digits}-digit code in ${JSON.stringify(res.body.data)}`).to.be.a('string');
  return code!;
}

/** A code of the same length as `code` that is certainly not `code` (a wrong OTP). */
export const otherCode = (code: string): string => String((Number(code) + 1) % 10 ** code.length).padStart(code.length, '0');

/** Moves the business's sandbox clock forward by `seconds`; asserts 200. */
export async function advanceClock(b: Caller, seconds: number): Promise<void> {
  const res = await post('/testhelpers/clock', { advance_seconds: seconds }, { token: b.token, baseUrl: b.baseUrl });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
}

/** Makes the next `failures` calls of the business to `provider` (e.g. `SMS`, `IDENTITY_VERIFICATION`) fail; asserts 200. */
export async function providerOutage(b: Caller, provider: string, failures = 1): Promise<void> {
  const res = await post('/testhelpers/provider-outages', { provider, failures }, { token: b.token, baseUrl: b.baseUrl });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
}
