/**
 * What the customer flows (onboarding, mobile number change, provider
 * callbacks) work with: the caller's database handle and business, the
 * providers, the keys, and the work to do once the caller's transaction has
 * committed (the sandbox providers' deliveries). Also the OTP policy of these
 * flows and the SMS delivery of their codes.
 */
import type { Knex } from 'knex';
import { callProvider } from '../providers/call.js';
import type { Acceptance } from '../providers/identity.js';
import type { Providers } from '../providers/index.js';
import type { IdentityKeys } from './identityData.js';
import { otpMessage, type Locale } from '../kernel/messages.js';
import type { OtpPolicy } from '../kernel/otp.js';

/** The environment of a request, before it is known which business it acts for (callbacks). */
export interface ServiceEnv {
  db: Knex;
  providers: Providers;
  /** Key of the OTPs' keyed hash. */
  otpKey: Buffer;
  /** Keys of the national ids at rest. */
  identityKeys: IdentityKeys;
  /** The service's own base URL, where the sandbox providers deliver their callbacks. */
  selfUrl: string;
  /** Run by `settle` once the request's transaction has committed. */
  afterCommit: (() => Promise<void>)[];
}

export interface FlowEnv extends ServiceEnv {
  businessId: string;
}

/** Arranges for a provider's sandbox result to be delivered once the caller has committed. */
export function schedule(env: ServiceEnv, acceptance: Acceptance): void {
  const deliver = acceptance.deliver;
  if (deliver) env.afterCommit.push(() => deliver(env.selfUrl));
}

/** Runs the work scheduled for after the commit, in order (deliveries never throw). */
export async function settle(env: ServiceEnv): Promise<void> {
  for (const task of env.afterCommit.splice(0)) await task();
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
