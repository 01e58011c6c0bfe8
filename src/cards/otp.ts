/**
 * The OTP steps of the card flows, on the one OTP engine (../kernel/otp/otp.ts): their
 * policies (seed "Limits" 3: 4 digits for E5, 4 to 8 for E6; at most 5 invalid
 * attempts for E6) and the one rule they add to the engine: a code proves the
 * customer holds their mobile number, so a code sent to a number that is no
 * longer the customer's cannot confirm anything (400 OTP_VERIFICATION_FAILED,
 * the seed's generic verification failure; the code stops working).
 */
import type { Knex } from 'knex';
import { AppError } from '../kernel/errors.js';
import type { CardKeyring } from './data.js';
import type { FlowEnv } from '../kernel/otp/flowEnv.js';
import { failOtpOperation, getOtpOperation, otpFailure, verifyOtp, type OtpOutcome, type OtpPolicy } from '../kernel/otp/otp.js';

/** What the card flows work with: a business request's environment and the card data keys. */
export interface CardEnv extends FlowEnv {
  cardKeys: CardKeyring;
}

/** Card issuance codes (E5): 4 digits, 5 minutes, 5 attempts, a new code after 60 s at most 3 times. */
export const CARD_ISSUANCE_OTP_POLICY: OtpPolicy = { digits: 4, ttlSeconds: 300, maxAttempts: 5, resendCooldownSeconds: 60, maxResends: 3 };

/** Display sensitive data codes (E6 accepts 4 to 8 digits; 6 are sent): 5 minutes, 5 attempts, no resend. */
export const SENSITIVE_DATA_OTP_POLICY: OtpPolicy = { digits: 6, ttlSeconds: 300, maxAttempts: 5, resendCooldownSeconds: 60, maxResends: 0 };

/** An engine outcome, or the card flows' own refusal of a code sent to a number that is no longer the customer's. */
export type CardOtpOutcome = OtpOutcome | { result: 'NUMBER_CHANGED' };

/**
 * Verifies `code` for operation `operationId`, sent for the customer whose
 * mobile number is now `customerMobileNumber`. A PENDING operation whose code
 * went to another number is FAILED without counting an attempt (NUMBER_CHANGED);
 * otherwise the engine counts the attempt. Run it in the caller's transaction
 * and commit before answering a refusal.
 */
export async function verifyCardOtp(
  trx: Knex,
  env: FlowEnv,
  args: { operationId: string; code: string; now: Date; customerMobileNumber: string },
): Promise<CardOtpOutcome> {
  const operation = await getOtpOperation(trx, env.businessId, args.operationId);
  if (operation?.status === 'PENDING' && operation.mobile_number !== args.customerMobileNumber) {
    await failOtpOperation(trx, env.businessId, operation.id);
    return { result: 'NUMBER_CHANGED' };
  }
  return verifyOtp(trx, env.otpKey, { operationId: args.operationId, businessId: env.businessId, code: args.code, now: args.now });
}

/** The seed's error for an outcome other than VERIFIED; E6 names a wrong code OTP_INVALID, E5 OTP_INCORRECT. */
export function cardOtpFailure(outcome: Exclude<CardOtpOutcome, { result: 'VERIFIED' }>, step: 'E5' | 'E6'): AppError {
  if (outcome.result === 'NUMBER_CHANGED') {
    return new AppError('OTP_VERIFICATION_FAILED', "The code was sent to a mobile number that is no longer the customer's; ask for a new code.");
  }
  const failure = otpFailure(outcome);
  return step === 'E6' && failure.code === 'OTP_INCORRECT' ? new AppError('OTP_INVALID', failure.message) : failure;
}
