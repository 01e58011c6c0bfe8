/**
 * Mobile number change (core API, tag Wallet), from the profile settings (seed
 * E7, the customer is logged in) or from the login screen (the customer cannot
 * log in, so their identity is verified again). A request checks the customer
 * (404; ACTIVE, else 409), the one-change-per-24-hours rule (429 with
 * Retry-After and `next_change_allowed_at`) and that no other ACTIVE customer
 * holds the new number (409), asks the identity provider whether the new number
 * is registered to the customer's national id, sends an OTP to the new number
 * and starts a session in PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION (seed),
 * replacing a live one of the same customer. Moves follow `mobileChangeMachine`.
 */
import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/types/core.js';
import { AppError, invalidField } from '../../kernel/errors.js';
import { callProvider } from '../../providers/call.js';
import { businessNow } from '../../kernel/clock.js';
import { CUSTOMER_OTP_POLICY, deliverAfterCommit, type CustomerEnv } from '../customerEnv.js';
import { smsDelivery } from '../../kernel/otp/flowEnv.js';
import { nationalIdHash, openNationalId } from '../identityData.js';
import type { Locale } from '../../kernel/otp/messages.js';
import { finishCustomerSteps } from './completion.js';
import {
  changeRow,
  expireChangeIfDue,
  LIVE_CHANGE_STATES,
  MOBILE_CHANGE_SESSION_TTL_SECONDS, moveChange, toChangeView, type Channel, type ChangeRow, type MobileNumberChangeView } from './sessions.js';
import { FINAL_MOBILE_CHANGE_STATES, mobileChangeMachine } from './states.js';
import { assertMobileNumberFree } from '../onboarding.js';
import { assertOtpFormat, assertOtpOperationOpen, issueOtp, otpFailure, verifyOtp } from '../../kernel/otp/otp.js';
import { createProviderRequest } from '../providerRequests.js';

type Schemas = components['schemas'];

/** One completed change per customer per this many seconds (seed, "Limits" 1). */
export const MOBILE_CHANGE_INTERVAL_SECONDS = 24 * 3600;

/** Throws 429 MOBILE_NUMBER_CHANGE_TOO_SOON (Retry-After, `next_change_allowed_at`) within 24 hours of the last change. */
function assertChangeAllowed(changedAt: Date | null, now: Date): void {
  if (!changedAt) return;
  const allowedAt = new Date(changedAt.getTime() + MOBILE_CHANGE_INTERVAL_SECONDS * 1000);
  if (now >= allowedAt) return;
  throw new AppError('MOBILE_NUMBER_CHANGE_TOO_SOON', `The mobile number was changed less than 24 hours ago; the next change is allowed at ${allowedAt.toISOString()}.`, {
    headers: { 'Retry-After': String(Math.ceil((allowedAt.getTime() - now.getTime()) / 1000)) },
    extensions: { next_change_allowed_at: allowedAt.toISOString() },
  });
}

/** Who asks: the logged-in customer (profile) or whoever holds the national id (login screen). */
export type ChangeRequester = { channel: 'PROFILE'; customerId: string } | { channel: 'LOGIN'; nationalId: string };

/**
 * Starts a change of the customer's mobile number to `newNumber`. 404
 * CUSTOMER_NOT_FOUND, 409 CUSTOMER_NOT_ACTIVE, 400 for the customer's current
 * number, 429 MOBILE_NUMBER_CHANGE_TOO_SOON, 409 MOBILE_NUMBER_TAKEN, 503 when
 * the identity or SMS provider fails (nothing written).
 */
export async function startMobileNumberChange(
  env: CustomerEnv,
  who: ChangeRequester,
  req: { new_mobile_number: string; locale?: Locale },
): Promise<Schemas['MobileNumberChangeStarted']> {
  const now = await businessNow(env.db, env.businessId);
  return env.db.transaction(async (trx) => {
    const customers = trx('customers').where({ business_id: env.businessId }).forNoKeyUpdate();
    if (who.channel === 'PROFILE') customers.where({ id: who.customerId });
    else customers.where({ national_id_hash: nationalIdHash(env.nationalIdKeys, env.businessId, who.nationalId), status: 'ACTIVE' });
    const customer = await customers.first();
    if (!customer) throw new AppError('CUSTOMER_NOT_FOUND', who.channel === 'PROFILE' ? `No customer ${who.customerId} for this business.` : 'No active customer of the business has this national id.');
    if (customer.status !== 'ACTIVE') throw new AppError('CUSTOMER_NOT_ACTIVE', `The customer is ${customer.status}; only ACTIVE customers change their mobile number.`);
    if (customer.mobile_number === req.new_mobile_number) throw invalidField('/new_mobile_number', "is already the customer's mobile number");
    assertChangeAllowed(customer.mobile_number_changed_at, now);
    await assertMobileNumberFree(trx, env.businessId, req.new_mobile_number, customer.id);

    const live: ChangeRow[] = await trx('mobile_number_change_sessions').where({ customer_id: customer.id, business_id: env.businessId }).whereIn('status', LIVE_CHANGE_STATES).forNoKeyUpdate();
    for (const row of live) await moveChange(trx, row, 'SUPERSEDE', { status_reason: 'SUPERSEDED' });

    const id = randomUUID();
    const reference = await createProviderRequest(trx, { businessId: env.businessId, kind: 'MOBILE_OWNERSHIP', subjectType: 'MOBILE_NUMBER_CHANGE', subjectId: id });
    const acceptance = await callProvider('IDENTITY_VERIFICATION', env.providers.timeoutMs, () =>
      env.providers.identity.checkMobileOwnership({
        businessId: env.businessId,
        reference,
        nationalId: openNationalId(env.nationalIdKeys, customer),
        mobileNumber: req.new_mobile_number,
      }),
    );
    const locale = req.locale ?? customer.locale;
    const otpId = await issueOtp(trx, env.otpKey, {
      businessId: env.businessId,
      purpose: 'MOBILE_NUMBER_CHANGE',
      mobileNumber: req.new_mobile_number,
      policy: CUSTOMER_OTP_POLICY,
      now,
      deliver: smsDelivery(env, req.new_mobile_number, locale, CUSTOMER_OTP_POLICY),
    });
    await trx('mobile_number_change_sessions').insert({
      id,
      business_id: env.businessId,
      customer_id: customer.id,
      channel: who.channel,
      status: 'PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION',
      old_mobile_number: customer.mobile_number,
      new_mobile_number: req.new_mobile_number,
      locale,
      otp_operation_id: otpId,
      ownership_check: 'PENDING',
      expires_at: new Date(now.getTime() + MOBILE_CHANGE_SESSION_TTL_SECONDS * 1000),
    });
    deliverAfterCommit(env, acceptance);
    return { session_id: id, customer_id: customer.id, status: 'PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION' };
  });
}

/** The session `id` of the channel (expired first if due). */
export async function getMobileNumberChange(env: CustomerEnv, channel: Channel, id: string): Promise<MobileNumberChangeView> {
  await expireChangeIfDue(env.db, env.businessId, id, await businessNow(env.db, env.businessId));
  return toChangeView(env.db, await changeRow(env.db, env.businessId, channel, id, false));
}

/**
 * Verifies the code sent to the new number. Profile: the change completes (the
 * old number is told; 503 when the SMS provider fails, nothing changed) or
 * awaits the ownership check; login: identity verification comes next. The
 * attempt is committed before a refusal; the last allowed wrong code FAILS the
 * session. 412 OTP_OPERATION_WRONG_STATUS once the code was verified or failed,
 * whatever the session's state; 409 for a session that ended with its code pending.
 */
export async function verifyMobileNumberChangeOtp(env: CustomerEnv, channel: Channel, id: string, code: string): Promise<MobileNumberChangeView> {
  assertOtpFormat(code, CUSTOMER_OTP_POLICY.digits);
  const now = await businessNow(env.db, env.businessId);
  await expireChangeIfDue(env.db, env.businessId, id, now);
  const { outcome, row } = await env.db.transaction(async (trx) => {
    let session = await changeRow(trx, env.businessId, channel, id, true);
    await assertOtpOperationOpen(trx, env.businessId, session.otp_operation_id);
    if (FINAL_MOBILE_CHANGE_STATES.includes(session.status)) mobileChangeMachine.next(session.status, 'VERIFY_OTP');
    const result = await verifyOtp(trx, env.otpKey, { operationId: session.otp_operation_id, businessId: env.businessId, code, now });
    if (result.result === 'VERIFIED') {
      session = channel === 'LOGIN' ? await moveChange(trx, session, 'LOGIN_OTP_VERIFIED') : await finishCustomerSteps({ ...env, db: trx }, session, now);
    } else if (result.result === 'MAX_ATTEMPTS_REACHED') {
      session = await moveChange(trx, session, 'FAIL', { status_reason: 'OTP_MAX_ATTEMPTS_REACHED' });
    }
    return { outcome: result, row: session };
  });
  if (outcome.result !== 'VERIFIED') throw otpFailure(outcome);
  return toChangeView(env.db, row);
}

/**
 * Login screen: asks the identity provider to verify the customer again (from
 * PENDING_IDENTITY_VERIFICATION only, else 409). 422 NATIONAL_ID_MISMATCH when
 * the national id is not the customer's; 503 when the provider fails.
 */
export async function initiateLoginIdentityVerification(env: CustomerEnv, id: string, req: Schemas['IdentityVerificationRequest']): Promise<void> {
  const now = await businessNow(env.db, env.businessId);
  await expireChangeIfDue(env.db, env.businessId, id, now);
  await env.db.transaction(async (trx) => {
    const session = await changeRow(trx, env.businessId, 'LOGIN', id, true);
    mobileChangeMachine.next(session.status, 'INITIATE_IDENTITY_VERIFICATION');
    const customer = await trx('customers').where({ id: session.customer_id, business_id: env.businessId }).first('national_id_hash');
    if (customer.national_id_hash !== nationalIdHash(env.nationalIdKeys, env.businessId, req.national_id)) {
      throw new AppError('NATIONAL_ID_MISMATCH', "The national id is not the customer's.");
    }
    const reference = await createProviderRequest(trx, { businessId: env.businessId, kind: 'IDENTITY', subjectType: 'MOBILE_NUMBER_CHANGE', subjectId: id });
    const acceptance = await callProvider('IDENTITY_VERIFICATION', env.providers.timeoutMs, () =>
      env.providers.identity.verifyIdentity({ businessId: env.businessId, reference, nationalId: req.national_id, dateOfBirth: req.date_of_birth }),
    );
    await moveChange(trx, session, 'INITIATE_IDENTITY_VERIFICATION');
    deliverAfterCommit(env, acceptance);
  });
}
