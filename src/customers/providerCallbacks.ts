/**
 * Applying the providers' signed callbacks (the signature was checked before,
 * see src/http/signatures.ts); those of mobile number changes are applied in
 * ./mobileNumberChange/completion.ts. Each runs in one transaction: claim the event id
 * (409 on replay) and the request (404 for an unknown reference), then move the
 * waiting session by its state machine. A result nothing waits for any more (a
 * second result, or a session that ended or expired) is acknowledged IGNORED.
 */
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { invalidField } from '../kernel/errors.js';
import { businessNow } from '../kernel/clock.js';
import type { CustomerEnv, ServiceEnv } from './customerEnv.js';
import { requestScreening } from './identityVerification.js';
import { moveSession, type SessionRow } from './onboarding.js';
import { onboardingMachine, type OnboardingEvent } from './onboardingStates.js';
import { applyIdentityToChange, applyOwnershipResult } from './mobileNumberChange/completion.js';
import { claimCallback, requestBusiness, type ProviderKind, type ProviderRequestRow } from './providerRequests.js';

type Schemas = components['schemas'];
export type CallbackAcknowledgement = Schemas['CallbackAcknowledgement'];

/** What applying a result to its subject did. */
export type Applied = CallbackAcknowledgement['result'];

/**
 * The onboarding session a request waits on, locked, and expired first when
 * due; undefined when the session is no longer in a state `event` may leave.
 */
async function waitingSession(env: CustomerEnv, trx: Knex, request: ProviderRequestRow, event: OnboardingEvent): Promise<SessionRow | undefined> {
  let session: SessionRow = await trx('onboarding_sessions').where({ id: request.subject_id, business_id: request.business_id }).forNoKeyUpdate().first();
  const now = await businessNow(trx, env.businessId);
  if (onboardingMachine.allows(session.status, 'EXPIRE') && session.expires_at <= now) session = await moveSession(trx, session, 'EXPIRE');
  return onboardingMachine.allows(session.status, event) ? session : undefined;
}

/** Claims the callback and runs `apply` for the request's business when it is the request's first result. */
async function receive(
  base: ServiceEnv,
  kind: ProviderKind,
  event: { event_id: string; reference: string; outcome: string },
  apply: (env: CustomerEnv, trx: Knex, request: ProviderRequestRow) => Promise<Applied>,
): Promise<CallbackAcknowledgement> {
  const businessId = await requestBusiness(base.db, kind, event.reference);
  return base.db.transaction(async (trx) => {
    const { request, firstResult } = await claimCallback(trx, businessId, kind, event);
    const env: CustomerEnv = { ...base, db: trx, businessId: request.business_id };
    return { event_id: event.event_id, result: firstResult ? await apply(env, trx, request) : 'IGNORED' };
  });
}

/** The identity verification result of an onboarding session, or of a mobile number change from the login screen. */
export async function receiveIdentityVerificationResult(base: ServiceEnv, result: Schemas['IdentityVerificationResult']): Promise<CallbackAcknowledgement> {
  if (result.outcome === 'APPROVED' && !result.full_name) throw invalidField('/full_name', 'is required when outcome is APPROVED');
  return receive(base, 'IDENTITY', result, async (env, trx, request) => {
    if (request.subject_type === 'MOBILE_NUMBER_CHANGE') return applyIdentityToChange(env, request, result);
    const approved = result.outcome === 'APPROVED';
    const session = await waitingSession(env, trx, request, approved ? 'IDENTITY_APPROVED' : 'IDENTITY_REJECTED');
    if (!session) return 'IGNORED';
    if (!approved) {
      await moveSession(trx, session, 'IDENTITY_REJECTED', { status_reason: 'IDENTITY_REJECTED' });
      return 'APPLIED';
    }
    await trx('customers').where({ id: session.customer_id, business_id: env.businessId }).update({ full_name: result.full_name, updated_at: trx.fn.now(3) });
    await requestScreening(env, trx, await moveSession(trx, session, 'IDENTITY_APPROVED'));
    return 'APPLIED';
  });
}

/** The screening result of an onboarding session. */
export function receiveScreeningResult(base: ServiceEnv, result: Schemas['ScreeningResult']): Promise<CallbackAcknowledgement> {
  return receive(base, 'SCREENING', result, async (env, trx, request) => {
    const clear = result.outcome === 'CLEAR';
    const session = await waitingSession(env, trx, request, clear ? 'SCREENING_CLEAR' : 'SCREENING_MATCH');
    if (!session) return 'IGNORED';
    await moveSession(trx, session, clear ? 'SCREENING_CLEAR' : 'SCREENING_MATCH', clear ? {} : { status_reason: 'SCREENING_MATCH' });
    return 'APPLIED';
  });
}

/** The mobile number ownership check of a mobile number change. */
export function receiveMobileOwnershipResult(base: ServiceEnv, result: Schemas['MobileOwnershipResult']): Promise<CallbackAcknowledgement> {
  return receive(base, 'MOBILE_OWNERSHIP', result, (env, _trx, request) => applyOwnershipResult(env, request, result));
}
