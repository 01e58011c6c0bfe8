/**
 * Onboarding sessions (core API, tag Onboarding): start (creates the customer,
 * sends a code), verify the code, resend it, read, cancel. State moves follow
 * `onboardingMachine` (./onboardingStates.ts); a refused move is 409
 * `ONBOARDING_STATE_<state>` and changes nothing. Every time rule reads the
 * business clock. A session row is locked (FOR NO KEY UPDATE) by every move, before
 * its OTP operation, so that moves of one session never interleave.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { AppError } from '../kernel/errors.js';
import { businessNow } from '../kernel/clock.js';
import { CUSTOMER_OTP_POLICY, type CustomerEnv } from './customerEnv.js';
import { smsDelivery } from '../kernel/otp/flowEnv.js';
import type { Locale } from '../kernel/otp/messages.js';
import {
  endsUnsuccessfully,
  FINAL_ONBOARDING_STATES,
  onboardingMachine,
  type OnboardingEvent,
  type OnboardingState,
  type OnboardingStatusReason,
} from './onboardingStates.js';
import { assertOtpFormat, assertOtpOperationOpen, issueOtp, otpFailure, otpOperationOf, resendOtp, verifyOtp } from '../kernel/otp/otp.js';
import { expireRowIfDue, moveRow } from '../kernel/stateMachine.js';

type Schemas = components['schemas'];
export type OnboardingSessionView = Schemas['OnboardingSession'];

/** Onboarding sessions expire 24 hours after their start (business clock). */
export const ONBOARDING_SESSION_TTL_SECONDS = 24 * 3600;

/** A row of `onboarding_sessions`. */
export interface SessionRow {
  id: string;
  business_id: string;
  customer_id: string;
  status: OnboardingState;
  status_reason: OnboardingStatusReason | null;
  mobile_number: string;
  locale: Locale;
  otp_operation_id: string;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
}

const LIVE_STATES = onboardingMachine.moves.EXPIRE.from;
const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

/** The session as the API shows it, with its current code's timing. */
export async function toView(db: Knex, row: SessionRow): Promise<OnboardingSessionView> {
  const otp = await otpOperationOf(db, row.business_id, row.otp_operation_id);
  const waiting = row.status === 'PENDING_OTP_VERIFICATION';
  const policy = CUSTOMER_OTP_POLICY;
  return {
    session_id: row.id,
    customer_id: row.customer_id,
    status: row.status,
    status_reason: row.status_reason,
    mobile_number: row.mobile_number,
    locale: row.locale,
    otp_expires_at: waiting ? iso(otp.expires_at) : null,
    otp_resend_available_at: waiting ? new Date(otp.sent_at.getTime() + policy.resendCooldownSeconds * 1000).toISOString() : null,
    otp_resends_remaining: Math.max(0, policy.maxResends - otp.resend_count),
    expires_at: row.expires_at.toISOString(),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** Records the expiry of a live session past its `expires_at`, on its own (it stays recorded whatever the caller then refuses). */
export async function expireIfDue(db: Knex, businessId: string, sessionId: string, now: Date): Promise<void> {
  await expireRowIfDue<SessionRow>(db, 'onboarding_sessions', { id: sessionId, business_id: businessId, live: LIVE_STATES, now }, (trx, row) => moveSession(trx, row, 'EXPIRE'));
}

/** The session, locked when `lock`; 404 ONBOARDING_SESSION_NOT_FOUND (also another business's). */
export async function sessionRow(db: Knex, businessId: string, id: string, lock: boolean): Promise<SessionRow> {
  const query = db('onboarding_sessions').where({ id, business_id: businessId });
  if (lock) query.forNoKeyUpdate();
  const row = await query.first();
  if (!row) throw new AppError('ONBOARDING_SESSION_NOT_FOUND', `No onboarding session ${id} for this business.`);
  return row;
}

/**
 * Applies `event` to a locked session (409 when the table does not allow it);
 * a session that ends without completing leaves its customer INACTIVE.
 */
export async function moveSession(
  trx: Knex,
  row: SessionRow,
  event: OnboardingEvent,
  changes: Partial<Pick<SessionRow, 'status_reason' | 'otp_operation_id' | 'locale'>> = {},
): Promise<SessionRow> {
  const updated = await moveRow<SessionRow, OnboardingEvent>(trx, 'onboarding_sessions', onboardingMachine, row, event, changes);
  if (endsUnsuccessfully(updated.status)) {
    await trx('customers').where({ id: row.customer_id, business_id: row.business_id, status: 'PENDING' }).update({ status: 'INACTIVE', updated_at: trx.fn.now(3) });
  }
  return updated;
}

/** Throws 409 MOBILE_NUMBER_TAKEN when an ACTIVE customer of the business (other than `exceptCustomerId`) holds `mobileNumber`. */
export async function assertMobileNumberFree(db: Knex, businessId: string, mobileNumber: string, exceptCustomerId?: string): Promise<void> {
  const query = db('customers').where({ business_id: businessId, mobile_number: mobileNumber, status: 'ACTIVE' });
  if (exceptCustomerId) query.whereNot({ id: exceptCustomerId });
  if (await query.first('id')) {
    throw new AppError('MOBILE_NUMBER_TAKEN', `An active customer of the business holds mobile number ${mobileNumber}.`);
  }
}

/**
 * Starts onboarding `mobile_number`: replaces a live session of the same
 * number, creates the PENDING customer and the session, and sends the code.
 * 409 MOBILE_NUMBER_TAKEN when an ACTIVE customer holds the number; 503
 * SERVICE_UNAVAILABLE (nothing written) when the SMS provider fails.
 */
export async function startOnboarding(env: CustomerEnv, req: Schemas['StartOnboardingRequest']): Promise<OnboardingSessionView> {
  const now = await businessNow(env.db, env.businessId);
  const locale = req.locale ?? 'ar';
  return env.db.transaction(async (trx) => {
    await assertMobileNumberFree(trx, env.businessId, req.mobile_number);
    const live: SessionRow[] = await trx('onboarding_sessions')
      .where({ business_id: env.businessId, mobile_number: req.mobile_number })
      .whereIn('status', LIVE_STATES)
      .forNoKeyUpdate();
    for (const row of live) await moveSession(trx, row, 'SUPERSEDE', { status_reason: 'SUPERSEDED' });

    const customerId = randomUUID();
    await trx('customers').insert({
      id: customerId,
      business_id: env.businessId,
      status: 'PENDING',
      mobile_number: req.mobile_number,
      locale,
      external_reference: req.external_reference ?? null,
    });
    const otpId = await issueOtp(trx, env.otpKey, {
      businessId: env.businessId,
      purpose: 'ONBOARDING',
      mobileNumber: req.mobile_number,
      policy: CUSTOMER_OTP_POLICY,
      now,
      deliver: smsDelivery(env, req.mobile_number, locale, CUSTOMER_OTP_POLICY),
    });
    const [row] = await trx('onboarding_sessions')
      .insert({
        id: randomUUID(),
        business_id: env.businessId,
        customer_id: customerId,
        status: 'PENDING_OTP_VERIFICATION',
        mobile_number: req.mobile_number,
        locale,
        otp_operation_id: otpId,
        expires_at: new Date(now.getTime() + ONBOARDING_SESSION_TTL_SECONDS * 1000),
      })
      .returning('*');
    return toView(trx, row);
  });
}

/** The session `id` of the business (expired first if due). */
export async function getOnboardingSession(env: CustomerEnv, id: string): Promise<OnboardingSessionView> {
  await expireIfDue(env.db, env.businessId, id, await businessNow(env.db, env.businessId));
  return toView(env.db, await sessionRow(env.db, env.businessId, id, false));
}

/**
 * Verifies the session's code. 412 OTP_OPERATION_WRONG_STATUS once its code was
 * verified or failed, whatever the session's state (ended sessions included); 409
 * for a session that ended with its code still pending; then the attempt is
 * counted and committed before a refusal is answered (OTP_INCORRECT,
 * OTP_MAX_ATTEMPTS_REACHED, OTP_EXPIRED).
 */
export async function verifyOnboardingOtp(env: CustomerEnv, id: string, code: string): Promise<OnboardingSessionView> {
  assertOtpFormat(code, CUSTOMER_OTP_POLICY.digits);
  const now = await businessNow(env.db, env.businessId);
  await expireIfDue(env.db, env.businessId, id, now);
  const { outcome, row } = await env.db.transaction(async (trx) => {
    const session = await sessionRow(trx, env.businessId, id, true);
    await assertOtpOperationOpen(trx, env.businessId, session.otp_operation_id);
    if (FINAL_ONBOARDING_STATES.includes(session.status)) onboardingMachine.next(session.status, 'VERIFY_OTP');
    const result = await verifyOtp(trx, env.otpKey, { operationId: session.otp_operation_id, businessId: env.businessId, code, now });
    return { outcome: result, row: result.result === 'VERIFIED' ? await moveSession(trx, session, 'VERIFY_OTP') : session };
  });
  if (outcome.result !== 'VERIFIED') throw otpFailure(outcome);
  return toView(env.db, row);
}

/**
 * Sends a new code (in `locale` when given); allowed while the session waits
 * for its code. 429 OTP_RESEND_TOO_SOON, 422 OTP_RESEND_LIMIT_REACHED, 503
 * when the SMS provider fails (the previous code then stays valid).
 */
export async function resendOnboardingOtp(env: CustomerEnv, id: string, req: Schemas['ResendOtpRequest']): Promise<OnboardingSessionView> {
  const now = await businessNow(env.db, env.businessId);
  await expireIfDue(env.db, env.businessId, id, now);
  return env.db.transaction(async (trx) => {
    const session = await sessionRow(trx, env.businessId, id, true);
    onboardingMachine.next(session.status, 'RESEND_OTP');
    const locale = req.locale ?? session.locale;
    const otpId = await resendOtp(trx, env.otpKey, session.otp_operation_id, {
      businessId: env.businessId,
      purpose: 'ONBOARDING',
      mobileNumber: session.mobile_number,
      policy: CUSTOMER_OTP_POLICY,
      now,
      deliver: smsDelivery(env, session.mobile_number, locale, CUSTOMER_OTP_POLICY),
    });
    return toView(trx, await moveSession(trx, session, 'RESEND_OTP', { otp_operation_id: otpId, locale }));
  });
}

/** Cancels a live session (409 once ended); its customer becomes INACTIVE. */
export async function cancelOnboardingSession(env: CustomerEnv, id: string, req: Schemas['CancelOnboardingRequest']): Promise<OnboardingSessionView> {
  const now = await businessNow(env.db, env.businessId);
  await expireIfDue(env.db, env.businessId, id, now);
  return env.db.transaction(async (trx) => {
    const session = await sessionRow(trx, env.businessId, id, true);
    return toView(trx, await moveSession(trx, session, 'CANCEL', { status_reason: req.reason }));
  });
}
