/**
 * The environment of a flow that confirms a step with a one-time code sent by SMS
 * (customer onboarding and mobile number change, card issuance, card steps,
 * sensitive data, tokenization): the caller's database handle and business, the key
 * of the OTPs' keyed hash (./otp.ts), and the text message channel the codes go out
 * on.
 *
 * The channel is an interface of the kernel that the SMS provider satisfies
 * (src/providers/sms.ts `smsChannel`: the provider behind its time limit), so that
 * the kernel names no provider.
 */
import type { Knex } from 'knex';
import type { Config } from '../serviceConfig.js';
import { keptSecret } from '../secrets/settings.js';
import { otpMessage, type Locale } from './messages.js';
import type { OtpPolicy } from './otp.js';

/** One text message to one mobile number, sent on behalf of a business. */
export interface TextMessage {
  businessId: string;
  /** Digits with country code, no plus sign. */
  to: string;
  text: string;
}

/**
 * Sends text messages. `send` resolves once the message is accepted; it rejects with
 * AppError 503 SERVICE_UNAVAILABLE when the provider fails or does not answer in time,
 * which is the answer the caller's request gets (its transaction rolls back).
 */
export interface TextMessages {
  send(message: TextMessage): Promise<void>;
}

/**
 * The key of the OTPs' keyed hash: OTP_HASH_KEY, or generated once and kept in `settings`
 * as `otp_hash_key`. Derived once, at start (src/server.ts), and handed to the handlers
 * in Services.keys.
 */
export function otpKeys(db: Knex, config: Config): Promise<Buffer> {
  return keptSecret(db, 'otp_hash_key', config.otpHashKey);
}

/** A business request's environment in an OTP flow. */
export interface FlowEnv {
  db: Knex;
  businessId: string;
  /** Key of the OTPs' keyed hash. */
  otpKey: Buffer;
  /** Where the codes and notifications go out. */
  sms: TextMessages;
}

/** The OTP engine's delivery of a code: sends `code` by SMS to `mobileNumber` in `locale`; 503 SERVICE_UNAVAILABLE when the SMS provider fails. */
export function smsDelivery(env: FlowEnv, mobileNumber: string, locale: Locale, policy: OtpPolicy): (code: string) => Promise<void> {
  return (code) => env.sms.send({ businessId: env.businessId, to: mobileNumber, text: otpMessage(locale, code, Math.round(policy.ttlSeconds / 60)) });
}

/** Sends a plain notification by SMS; 503 SERVICE_UNAVAILABLE when the SMS provider fails. */
export function sendSms(env: FlowEnv, mobileNumber: string, text: string): Promise<void> {
  return env.sms.send({ businessId: env.businessId, to: mobileNumber, text });
}
