/**
 * The OTP-guarded card steps after issuance (seed "Cards,
 * management/issuance"): set or update the PIN, activate a physical card,
 * convert a virtual card to a physical one, replace a card. Each is two
 * operations: the step (checked against the card state table, ./states.ts,
 * 409 CARD_STATUS_NOT_ALLOWED; a 6-digit code is sent to the customer's number
 * and a session answered) and "verify … OTP" (the code; the step is done).
 *
 * What the step will do is kept on its session (`card_otp_sessions`, by
 * `purpose`): the new PIN sealed like the card's, the replacement reason. The
 * card is checked again, locked, when the code is verified: a card that moved
 * in between is 409 and the code is not spent.
 */
import { randomUUID } from 'node:crypto';
import type { components } from '../../generated/types/core.js';
import { AppError } from '../kernel/errors.js';
import { sealCardValue } from './data.js';
import { cardOtpFailure, verifyCardOtp, type CardEnv } from './otp.js';
import { cardRow, createReplacementCard, toCardView, type CardRow, type ReplacementReason } from './cards.js';
import { cardMachine, type CardEvent } from './states.js';
import { businessNow } from '../kernel/clock.js';
import { smsDelivery } from '../kernel/otp/flowEnv.js';
import type { Locale } from '../kernel/otp/messages.js';
import { assertOtpFormat, getOtpOperation, issueOtp, type OtpPolicy } from '../kernel/otp/otp.js';
import { customerContact } from '../customers/index.js';

type Schemas = components['schemas'];
export type CardStepPurpose = 'SET_PIN' | 'ACTIVATION' | 'CONVERSION' | 'REPLACEMENT';

/** Codes of the card steps: 6 digits, 5 minutes, 5 attempts, no resend (ask for the step again). */
export const CARD_STEP_OTP_POLICY: OtpPolicy = { digits: 6, ttlSeconds: 300, maxAttempts: 5, resendCooldownSeconds: 60, maxResends: 0 };

/** A row of `card_otp_sessions` of a card step. */
interface StepSession {
  id: string;
  card_id: string;
  purpose: CardStepPurpose;
  otp_operation_id: string;
  pin_sealed: string | null;
  pin_key_version: number | null;
  reason: ReplacementReason | null;
}

/** What a step asks for: the PIN of SET_PIN, the reason of REPLACEMENT. */
export interface StepRequest {
  locale?: Locale;
  pin?: string;
  reason?: ReplacementReason;
}

/** The card event of a step; throws 409 CARD_STATUS_NOT_ALLOWED when the card cannot take the step now. */
function stepEvent(card: CardRow, purpose: CardStepPurpose, reason: ReplacementReason | null | undefined): CardEvent {
  const refuse = (why: string) => new AppError('CARD_STATUS_NOT_ALLOWED', why);
  switch (purpose) {
    case 'SET_PIN':
      return 'SET_PIN';
    case 'ACTIVATION':
      return 'ACTIVATE';
    case 'CONVERSION':
      if (card.type !== 'VIRTUAL') throw refuse(`The card is ${card.type} already; only a VIRTUAL card is converted.`);
      return 'CONVERT';
    case 'REPLACEMENT':
      if (card.replaced_by_card_id) throw refuse(`The card is ${card.status} and was replaced by card ${card.replaced_by_card_id} already.`);
      return `REPLACE_${reason!}`;
  }
}

/**
 * Starts step `purpose` on card `cardId`: checks the card state table, sends the
 * code to the customer's number and answers the session. 404 CARD_NOT_FOUND; 409
 * CARD_STATUS_NOT_ALLOWED; 503 when the SMS provider fails (nothing written).
 */
export async function startCardStep(env: CardEnv, cardId: string, purpose: CardStepPurpose, req: StepRequest): Promise<Schemas['CardStepSession']> {
  const now = await businessNow(env.db, env.businessId);
  return env.db.transaction(async (trx) => {
    const card = await cardRow(trx, env.businessId, cardId, true);
    cardMachine.next(card.status, stepEvent(card, purpose, req.reason));
    const customer = await customerContact(trx, card.business_id, card.customer_id);
    const otpId = await issueOtp(trx, env.otpKey, {
      businessId: env.businessId,
      purpose: `CARD_${purpose}`,
      mobileNumber: customer.mobile_number,
      policy: CARD_STEP_OTP_POLICY,
      now,
      deliver: smsDelivery(env, customer.mobile_number, req.locale ?? customer.locale, CARD_STEP_OTP_POLICY),
    });
    const pin = req.pin === undefined ? undefined : sealCardValue(env.cardKeys, card.id, 'pin', req.pin);
    const id = randomUUID();
    await trx('card_otp_sessions').insert({
      id,
      business_id: env.businessId,
      card_id: card.id,
      purpose,
      otp_operation_id: otpId,
      pin_sealed: pin?.sealed ?? null,
      pin_key_version: pin?.keyVersion ?? null,
      reason: req.reason ?? null,
    });
    return { session_id: id, card_id: card.id, otp_expires_at: new Date(now.getTime() + CARD_STEP_OTP_POLICY.ttlSeconds * 1000).toISOString() };
  });
}

/** Does the verified step to the locked card; returns the card to answer. */
async function applyStep(env: CardEnv, trx: CardEnv['db'], card: CardRow, session: StepSession, event: CardEvent, now: Date): Promise<CardRow> {
  const update = (changes: Partial<CardRow>) =>
    trx('cards')
      .where({ id: card.id, business_id: card.business_id })
      .update({ ...changes, updated_at: trx.fn.now(3) })
      .returning('*')
      .then((rows: CardRow[]) => rows[0]);
  const next = cardMachine.next(card.status, event);
  switch (session.purpose) {
    case 'SET_PIN':
      // Sealed for this card's `pin` field when asked for: it moves over as it is. A new PIN
      // starts a new count of wrong tries, which unblocks a PIN blocked by them.
      return update({ pin_sealed: session.pin_sealed, pin_key_version: session.pin_key_version, pin_failed_tries: 0 });
    case 'CONVERSION':
      return update({ type: 'PHYSICAL', status: next });
    case 'ACTIVATION':
      if (card.replaces_card_id) {
        // A damaged or expired card works until its replacement is active.
        await trx('cards')
          .where({ id: card.replaces_card_id, business_id: card.business_id })
          .whereIn('status', ['ACTIVE', 'TEMPORARILY_BLOCKED'])
          .update({ status: 'CLOSED', updated_at: trx.fn.now(3) });
      }
      return update({ status: next });
    case 'REPLACEMENT':
      return createReplacementCard(trx, env.cardKeys, card, session.reason!, now, next);
  }
}

/**
 * "Verify … OTP" of step `purpose` on card `cardId` with session `sessionId`. In
 * order: 400 INVALID_OTP_FORMAT (not 6 digits); 404 CARD_NOT_FOUND; 404
 * OTP_OPERATION_NOT_FOUND (no such session of this step and card); while the
 * code is pending, 409 CARD_STATUS_NOT_ALLOWED when the card can no longer take
 * the step (the code is not spent); then the code (the attempt is committed
 * before a refusal): 412 OTP_OPERATION_WRONG_STATUS, 400
 * OTP_VERIFICATION_FAILED, OTP_EXPIRED, OTP_INCORRECT, OTP_MAX_ATTEMPTS_REACHED.
 * Answers the card (for a replacement, the new card).
 */
export async function verifyCardStep(env: CardEnv, cardId: string, purpose: CardStepPurpose, sessionId: string, otp: string): Promise<Schemas['Card']> {
  assertOtpFormat(otp, CARD_STEP_OTP_POLICY.digits);
  const now = await businessNow(env.db, env.businessId);
  const { outcome, card } = await env.db.transaction(async (trx) => {
    const row = await cardRow(trx, env.businessId, cardId, true);
    const session: StepSession | undefined = await trx('card_otp_sessions').where({ id: sessionId, business_id: env.businessId, card_id: row.id, purpose }).first();
    if (!session) throw new AppError('OTP_OPERATION_NOT_FOUND', `No ${purpose} session ${sessionId} of card ${cardId}.`);
    const operation = await getOtpOperation(trx, env.businessId, session.otp_operation_id);
    // Only a pending code is worth the card check: a spent one answers its own status.
    const event = () => stepEvent(row, purpose, session.reason);
    if (operation?.status === 'PENDING') cardMachine.next(row.status, event());
    const customer = await customerContact(trx, row.business_id, row.customer_id);
    const result = await verifyCardOtp(trx, env, { operationId: session.otp_operation_id, code: otp, now, customerMobileNumber: customer.mobile_number });
    if (result.result !== 'VERIFIED') return { outcome: result, card: undefined };
    return { outcome: result, card: await applyStep(env, trx, row, session, event(), now) };
  });
  if (outcome.result !== 'VERIFIED') throw cardOtpFailure(outcome, 'E5');
  return toCardView(card!);
}
