/**
 * Showing a card's sensitive data to its customer: display sensitive data
 * starts a session and sends a 6-digit code to the customer's number; seed E6
 * (verify display sensitive data OTP) checks the code and answers the PAN, CVV,
 * expiry (MM/YY) and PIN (null when none is set). E6 is the only way these
 * values leave the service. Only an ACTIVE card shows them (412
 * INVALID_CARD_STATUS); at most 5 invalid attempts (the engine's atomic count).
 */
import { randomUUID } from 'node:crypto';
import type { components } from '../../generated/types/core.js';
import { AppError } from '../kernel/errors.js';
import { expiryMonthYear, openCardValue } from './data.js';
import { cardOtpFailure, SENSITIVE_DATA_OTP_POLICY, verifyCardOtp, type CardEnv } from './otp.js';
import { cardRow, type CardRow } from './cards.js';
import { businessNow } from '../kernel/clock.js';
import { smsDelivery, type FlowEnv } from '../kernel/otp/flowEnv.js';
import type { Locale } from '../kernel/otp/messages.js';
import { assertOtpFormat, assertOtpOperationOpen, issueOtp } from '../kernel/otp/otp.js';
import { customerContact } from '../customers/index.js';

type Schemas = components['schemas'];

const PURPOSE = 'DISPLAY_SENSITIVE_DATA';

function assertActive(card: CardRow): void {
  if (card.status !== 'ACTIVE') throw new AppError('INVALID_CARD_STATUS', `The card is ${card.status}; only an ACTIVE card shows its data.`);
}

/**
 * Starts a display session of card `cardId`: sends the code to the customer's
 * number and answers the session. 404 CARD_NOT_FOUND; 412 INVALID_CARD_STATUS;
 * 503 when the SMS provider fails (nothing written).
 */
export async function displayCardSensitiveData(env: FlowEnv, cardId: string, req: { locale?: Locale }): Promise<Schemas['SensitiveDataSession']> {
  const now = await businessNow(env.db, env.businessId);
  return env.db.transaction(async (trx) => {
    const card = await cardRow(trx, env.businessId, cardId);
    assertActive(card);
    const customer = await customerContact(trx, card.business_id, card.customer_id);
    const otpId = await issueOtp(trx, env.otpKey, {
      businessId: env.businessId,
      purpose: PURPOSE,
      mobileNumber: customer.mobile_number,
      policy: SENSITIVE_DATA_OTP_POLICY,
      now,
      deliver: smsDelivery(env, customer.mobile_number, req.locale ?? customer.locale, SENSITIVE_DATA_OTP_POLICY),
    });
    const id = randomUUID();
    await trx('card_otp_sessions').insert({ id, business_id: env.businessId, card_id: card.id, purpose: PURPOSE, otp_operation_id: otpId });
    return { session_id: id, card_id: card.id, otp_expires_at: new Date(now.getTime() + SENSITIVE_DATA_OTP_POLICY.ttlSeconds * 1000).toISOString() };
  });
}

/**
 * Seed E6. In order: 400 INVALID_OTP_FORMAT (not 4 to 8 digits); 404
 * OTP_OPERATION_NOT_FOUND (no such session); 404 CARD_NOT_FOUND (`card_id`
 * given and not the session's card); 412 OTP_OPERATION_WRONG_STATUS (the
 * session's code already verified or failed); 412 INVALID_CARD_STATUS; then the
 * code (the attempt committed before a refusal): 400 OTP_VERIFICATION_FAILED,
 * OTP_EXPIRED, OTP_INVALID, OTP_MAX_ATTEMPTS_REACHED.
 */
export async function verifyDisplaySensitiveDataOtp(env: CardEnv, req: Schemas['SensitiveDataOtpRequest']): Promise<Schemas['CardSensitiveData']> {
  assertOtpFormat(req.otp, 4, 8);
  const now = await businessNow(env.db, env.businessId);
  const { outcome, data } = await env.db.transaction(async (trx) => {
    const session = await trx('card_otp_sessions').where({ id: req.session_id, business_id: env.businessId, purpose: PURPOSE }).first();
    if (!session) throw new AppError('OTP_OPERATION_NOT_FOUND', `No display session ${req.session_id} for this business.`);
    if (req.card_id && req.card_id !== session.card_id) throw new AppError('CARD_NOT_FOUND', `Card ${req.card_id} is not the session's card.`);
    const card = await cardRow(trx, env.businessId, session.card_id, true);
    await assertOtpOperationOpen(trx, env.businessId, session.otp_operation_id);
    assertActive(card);
    const customer = await customerContact(trx, card.business_id, card.customer_id);
    const result = await verifyCardOtp(trx, env, { operationId: session.otp_operation_id, code: req.otp, now, customerMobileNumber: customer.mobile_number });
    if (result.result !== 'VERIFIED') return { outcome: result, data: undefined };
    const open = (field: 'pan' | 'cvv' | 'pin', sealed: string, keyVersion: number) => openCardValue(env.cardKeys, card.id, field, { sealed, keyVersion });
    return {
      outcome: result,
      data: {
        pan: open('pan', card.pan_sealed, card.pan_key_version),
        cvv: open('cvv', card.cvv_sealed, card.cvv_key_version),
        expiry: expiryMonthYear(card.expiry_date),
        pin: card.pin_sealed === null ? null : open('pin', card.pin_sealed, card.pin_key_version!),
      },
    };
  });
  if (outcome.result !== 'VERIFIED') throw cardOtpFailure(outcome, 'E6');
  return data!;
}
