/**
 * What the customer flows (onboarding, mobile number change) work with: the
 * caller's database handle and business, the providers, and the OTP key. Also
 * the OTP policy of these flows and the SMS delivery of their codes.
 */
import type { Knex } from 'knex';
import { callProvider } from '../providers/call.js';
import type { Providers } from '../providers/index.js';
import { otpMessage, type Locale } from './messages.js';
import type { OtpPolicy } from './otp.js';

export interface FlowEnv {
  db: Knex;
  businessId: string;
  providers: Providers;
  /** Key of the OTPs' keyed hash. */
  otpKey: Buffer;
}

/**
 * Codes of the customer flows: 6 digits, valid 5 minutes, 5 attempts, a new
 * one 60 seconds after the last at the earliest and at most 3 times (documented
 * in core.yaml's info).
 */
export const CUSTOMER_OTP_POLICY: OtpPolicy = { digits: 6, ttlSeconds: 300, maxAttempts: 5, resendCooldownSeconds: 60, maxResends: 3 };

/** Sends `code` by SMS to `mobileNumber`; 503 SERVICE_UNAVAILABLE when the SMS provider fails. */
export function smsDelivery(env: FlowEnv, mobileNumber: string, locale: Locale, policy: OtpPolicy): (code: string) => Promise<void> {
  return (code) =>
    callProvider('SMS', env.providers.timeoutMs, () =>
      env.providers.sms.send({ businessId: env.businessId, to: mobileNumber, text: otpMessage(locale, code, Math.round(policy.ttlSeconds / 60)) }),
    );
}

/** Sends a plain notification by SMS; 503 SERVICE_UNAVAILABLE when the SMS provider fails. */
export function sendSms(env: FlowEnv, mobileNumber: string, text: string): Promise<void> {
  return callProvider('SMS', env.providers.timeoutMs, () => env.providers.sms.send({ businessId: env.businessId, to: mobileNumber, text }));
}
