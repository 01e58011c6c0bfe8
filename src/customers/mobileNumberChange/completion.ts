/**
 * The end of a mobile number change: once the customer's steps are done (the
 * code, and from the login screen the identity) and the provider confirmed the
 * number is registered to the customer's national id, whichever comes last,
 * the customer's number changes and the previous number is told by SMS, in the
 * same transaction (503 when the SMS provider fails: nothing changes, and the
 * same request or callback can be sent again). Also the provider results that
 * move a change session (ownership check; identity, from the login screen).
 */
import type { components } from '../../../generated/types/core.js';
import { businessNow } from '../../kernel/clock.js';
import type { CustomerEnv } from '../customerEnv.js';
import { sendSms } from '../../kernel/otp/flowEnv.js';
import { mobileNumberChangedMessage } from '../../kernel/otp/messages.js';
import { LIVE_CHANGE_STATES, moveChange, type ChangeRow } from './sessions.js';
import { mobileChangeMachine } from './states.js';
import type { ProviderRequestRow } from '../providerRequests.js';

type Schemas = components['schemas'];
type Applied = Schemas['CallbackAcknowledgement']['result'];

/**
 * Changes the customer's number to the session's (COMPLETED) and tells the old
 * number; or FAILS the session (MOBILE_NUMBER_TAKEN) when another ACTIVE
 * customer got the number meanwhile. `changes` are recorded with the move.
 */
async function completeChange(env: CustomerEnv, session: ChangeRow, now: Date, changes: Partial<ChangeRow> = {}): Promise<ChangeRow> {
  const trx = env.db;
  await trx('customers').where({ id: session.customer_id, business_id: env.businessId }).forNoKeyUpdate().first('id');
  const taken = await trx('customers')
    .where({ business_id: env.businessId, mobile_number: session.new_mobile_number, status: 'ACTIVE' })
    .whereNot({ id: session.customer_id })
    .first('id');
  if (taken) return moveChange(trx, session, 'FAIL', { ...changes, status_reason: 'MOBILE_NUMBER_TAKEN' });
  await trx('customers')
    .where({ id: session.customer_id, business_id: env.businessId })
    .update({ mobile_number: session.new_mobile_number, mobile_number_changed_at: now, updated_at: trx.fn.now(3) });
  await sendSms(env, session.old_mobile_number, mobileNumberChangedMessage(session.locale, session.new_mobile_number, now.toISOString().slice(0, 10)));
  return moveChange(trx, session, 'COMPLETE', { ...changes, completed_at: now });
}

/** The customer's steps are done (`env.db` is the caller's transaction): complete when ownership is confirmed, else await the provider. */
export async function finishCustomerSteps(env: CustomerEnv, session: ChangeRow, now: Date): Promise<ChangeRow> {
  return session.ownership_check === 'CONFIRMED' ? completeChange(env, session, now) : moveChange(env.db, session, 'AWAIT_OWNERSHIP_CHECK');
}

/** The live change session a request waits on, locked and expired first when due; undefined once it ended. */
async function liveChange(env: CustomerEnv, request: ProviderRequestRow, now: Date): Promise<ChangeRow | undefined> {
  let session: ChangeRow = await env.db('mobile_number_change_sessions').where({ id: request.subject_id, business_id: request.business_id }).forNoKeyUpdate().first();
  if (LIVE_CHANGE_STATES.includes(session.status) && session.expires_at <= now) session = await moveChange(env.db, session, 'EXPIRE');
  return LIVE_CHANGE_STATES.includes(session.status) ? session : undefined;
}

/**
 * The ownership check's result (`env.db` is the callback's transaction):
 * rejected FAILS the session; confirmed completes a session awaiting it, else is
 * recorded for when the customer's steps are done.
 */
export async function applyOwnershipResult(env: CustomerEnv, request: ProviderRequestRow, result: Schemas['MobileOwnershipResult']): Promise<Applied> {
  const now = await businessNow(env.db, env.businessId);
  const session = await liveChange(env, request, now);
  if (!session) return 'IGNORED';
  if (result.outcome === 'REJECTED') await moveChange(env.db, session, 'FAIL', { status_reason: 'OWNERSHIP_REJECTED', ownership_check: 'REJECTED' });
  else if (session.status === 'AWAITING_OWNERSHIP_CHECK') await completeChange(env, session, now, { ownership_check: 'CONFIRMED' });
  else await moveChange(env.db, session, 'OWNERSHIP_CONFIRMED', { ownership_check: 'CONFIRMED' });
  return 'APPLIED';
}

/** The identity result of a change from the login screen: approved finishes the customer's steps; rejected FAILS the session. */
export async function applyIdentityToChange(env: CustomerEnv, request: ProviderRequestRow, result: Schemas['IdentityVerificationResult']): Promise<Applied> {
  const now = await businessNow(env.db, env.businessId);
  const session = await liveChange(env, request, now);
  if (!session || !mobileChangeMachine.allows(session.status, 'IDENTITY_RESULT')) return 'IGNORED';
  if (result.outcome === 'REJECTED') await moveChange(env.db, session, 'FAIL', { status_reason: 'IDENTITY_REJECTED' });
  else await finishCustomerSteps(env, session, now);
  return 'APPLIED';
}
