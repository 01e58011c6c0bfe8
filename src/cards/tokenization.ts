/**
 * Tokenization activation code requests (sandbox test helpers, seed E9 and the
 * activation helpers verifyOtp and confirmIvr): a simulated provisioning of a
 * card's token into a device wallet, as a token service provider would ask the
 * issuer for it. Creating one sends a 6-digit activation code to the customer
 * (the one OTP engine, ../kernel/otp/otp.ts); the request is then activated by the right
 * code (verifyOtp) or by the customer's call to the issuer's phone line
 * (confirmIvr). The object keeps the seed's camelCase field names.
 *
 * States (published in core.yaml, tag Test Helpers): PENDING_VERIFICATION →
 * ACTIVATED (right code, or IVR confirmed); → FAILED (5th wrong code, or IVR
 * rejected); →
 * EXPIRED (the code expired); the last three are final. A move outside the
 * table is 409 ACTIVATION_CODE_REQUEST_STATUS_NOT_ALLOWED and changes nothing.
 * A code's outcome is an answer (`verificationResult`), not an error.
 */
import { randomUUID } from 'node:crypto';
import type { components } from '../../generated/types/core.js';
import { AppError } from '../kernel/errors.js';
import type { CardRow } from './cards.js';
import { cardRow } from './cards.js';
import { businessNow } from '../kernel/clock.js';
import { smsDelivery, type FlowEnv } from '../kernel/otp/flowEnv.js';
import { failOtpOperation, issueOtp, verifyOtp, type OtpPolicy } from '../kernel/otp/otp.js';
import { stateMachine } from '../kernel/stateMachine.js';
import { customerContact } from '../customers/index.js';

type Schemas = components['schemas'];
type RequestView = Schemas['ActivationCodeRequest'];
type RequestState = RequestView['status'];

/** Activation codes: 6 digits, 10 minutes, 5 attempts, no resend (make a new request). */
export const ACTIVATION_CODE_OTP_POLICY: OtpPolicy = { digits: 6, ttlSeconds: 600, maxAttempts: 5, resendCooldownSeconds: 60, maxResends: 0 };

const REQUEST_STATES: readonly RequestState[] = ['PENDING_VERIFICATION', 'ACTIVATED', 'FAILED', 'EXPIRED'];

/** The request's state table; a refusal names the current state. */
export const activationRequestMachine = stateMachine<RequestState, 'VERIFY_OTP' | 'CONFIRM_IVR' | 'REJECT_IVR'>(
  REQUEST_STATES,
  {
    // The outcome of a code decides the state: ACTIVATED, FAILED, EXPIRED, or still pending.
    VERIFY_OTP: { from: ['PENDING_VERIFICATION'] },
    CONFIRM_IVR: { from: ['PENDING_VERIFICATION'], to: 'ACTIVATED' },
    REJECT_IVR: { from: ['PENDING_VERIFICATION'], to: 'FAILED' },
  },
  (state) => new AppError('ACTIVATION_CODE_REQUEST_STATUS_NOT_ALLOWED', `The activation code request is ${state}; this step is not allowed now.`),
);

/** A row of `tokenization_activation_requests`. */
interface RequestRow {
  id: string;
  business_id: string;
  card_id: string;
  wallet: RequestView['wallet'];
  device: string;
  message_type: RequestView['messageType'];
  status: RequestState;
  notification_id: string;
  otp_operation_id: string;
  verification_result: RequestView['verificationResult'];
  otp_sent_at: Date;
  otp_verified_at: Date | null;
  ivr_completed_at: Date | null;
  created_at: Date;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

async function toView(db: FlowEnv['db'], row: RequestRow): Promise<RequestView> {
  const card: Pick<CardRow, 'token'> = await db('cards').where({ id: row.card_id, business_id: row.business_id }).first('token');
  return {
    id: row.id,
    token: Number(card.token),
    messageType: row.message_type,
    status: row.status,
    wallet: row.wallet,
    device: row.device,
    notificationId: row.notification_id,
    createdAt: row.created_at.toISOString(),
    ivrCompletedAt: iso(row.ivr_completed_at),
    otpSentAt: row.otp_sent_at.toISOString(),
    otpVerifiedAt: iso(row.otp_verified_at),
    verificationResult: row.verification_result,
  };
}

async function requestRow(db: FlowEnv['db'], businessId: string, id: string, lock = false): Promise<RequestRow> {
  const query = db('tokenization_activation_requests').where({ id, business_id: businessId });
  if (lock) query.forNoKeyUpdate();
  const row = await query.first();
  if (!row) throw new AppError('ACTIVATION_CODE_REQUEST_NOT_FOUND', `No activation code request ${id} for this business.`);
  return row;
}

/**
 * Creates an activation code request for card `card_id` into `wallet` on
 * `device`: sends the code by SMS to the customer. 404 CARD_NOT_FOUND; 412
 * INVALID_CARD_STATUS (only an ACTIVE card is tokenized); 503 when the SMS
 * provider fails (nothing written).
 */
export async function createActivationCodeRequest(env: FlowEnv, req: Schemas['ActivationCodeRequestCreate']): Promise<RequestView> {
  const now = await businessNow(env.db, env.businessId);
  return env.db.transaction(async (trx) => {
    const card = await cardRow(trx, env.businessId, req.card_id);
    if (card.status !== 'ACTIVE') throw new AppError('INVALID_CARD_STATUS', `The card is ${card.status}; only an ACTIVE card is tokenized.`);
    const customer = await customerContact(trx, card.business_id, card.customer_id);
    const otpId = await issueOtp(trx, env.otpKey, {
      businessId: env.businessId,
      purpose: 'TOKENIZATION_ACTIVATION',
      mobileNumber: customer.mobile_number,
      policy: ACTIVATION_CODE_OTP_POLICY,
      now,
      deliver: smsDelivery(env, customer.mobile_number, customer.locale, ACTIVATION_CODE_OTP_POLICY),
    });
    const [row] = await trx('tokenization_activation_requests')
      .insert({
        id: randomUUID(),
        business_id: env.businessId,
        card_id: card.id,
        wallet: req.wallet,
        device: req.device,
        message_type: 'ACTIVATION_CODE_SMS',
        status: 'PENDING_VERIFICATION',
        notification_id: randomUUID(),
        otp_operation_id: otpId,
        otp_sent_at: now,
      })
      .returning('*');
    return toView(trx, row);
  });
}

/** Seed E9: the request `id`; 404 ACTIVATION_CODE_REQUEST_NOT_FOUND. */
export async function getActivationCodeRequest(env: FlowEnv, id: string): Promise<RequestView> {
  return toView(env.db, await requestRow(env.db, env.businessId, id));
}

const OUTCOMES: Record<string, { status: RequestState; result: NonNullable<RequestView['verificationResult']> }> = {
  VERIFIED: { status: 'ACTIVATED', result: 'OTP_VERIFIED' },
  INCORRECT: { status: 'PENDING_VERIFICATION', result: 'INCORRECT_CODE' },
  MAX_ATTEMPTS_REACHED: { status: 'FAILED', result: 'ATTEMPTS_EXCEEDED' },
  EXPIRED: { status: 'EXPIRED', result: 'CODE_EXPIRED' },
};

/**
 * verifyOtp: checks `otp` against the request's activation code and records the
 * outcome (`verificationResult`; the state per the table). 404
 * ACTIVATION_CODE_REQUEST_NOT_FOUND; 409 ACTIVATION_CODE_REQUEST_STATUS_NOT_ALLOWED
 * unless PENDING_VERIFICATION.
 */
export async function verifyActivationCode(env: FlowEnv, id: string, otp: string): Promise<RequestView> {
  const now = await businessNow(env.db, env.businessId);
  return env.db.transaction(async (trx) => {
    const row = await requestRow(trx, env.businessId, id, true);
    activationRequestMachine.next(row.status, 'VERIFY_OTP');
    const outcome = await verifyOtp(trx, env.otpKey, { operationId: row.otp_operation_id, businessId: env.businessId, code: otp, now });
    // An operation that can no longer be verified (it failed otherwise) ends the request.
    const { status, result } = OUTCOMES[outcome.result] ?? OUTCOMES.MAX_ATTEMPTS_REACHED;
    const [updated] = await trx('tokenization_activation_requests')
      .where({ id: row.id, business_id: row.business_id })
      .update({ status, verification_result: result, otp_verified_at: status === 'ACTIVATED' ? now : null, updated_at: trx.fn.now(3) })
      .returning('*');
    return toView(trx, updated);
  });
}

/**
 * confirmIvr: the customer called the issuer's phone line and confirmed the
 * provisioning (ACTIVATED, IVR_CONFIRMED) or refused it (FAILED, IVR_REJECTED);
 * the code stops working. 404 ACTIVATION_CODE_REQUEST_NOT_FOUND;
 * 409 ACTIVATION_CODE_REQUEST_STATUS_NOT_ALLOWED unless PENDING_VERIFICATION.
 */
export async function confirmActivationIvr(env: FlowEnv, id: string, result: Schemas['ConfirmIvrRequest']['result']): Promise<RequestView> {
  const now = await businessNow(env.db, env.businessId);
  return env.db.transaction(async (trx) => {
    const row = await requestRow(trx, env.businessId, id, true);
    const status = activationRequestMachine.next(row.status, result === 'CONFIRMED' ? 'CONFIRM_IVR' : 'REJECT_IVR');
    await failOtpOperation(trx, row.business_id, row.otp_operation_id);
    const [updated] = await trx('tokenization_activation_requests')
      .where({ id: row.id, business_id: row.business_id })
      .update({ status, verification_result: result === 'CONFIRMED' ? 'IVR_CONFIRMED' : 'IVR_REJECTED', ivr_completed_at: now, updated_at: trx.fn.now(3) })
      .returning('*');
    return toView(trx, updated);
  });
}
