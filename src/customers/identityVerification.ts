/**
 * The identity step of onboarding: `initiateIdentityVerification` sends the
 * customer's national id and date of birth to the identity verification
 * provider; its signed callback (./providerCallbacks.ts) then approves or
 * rejects, and an approval requests the screening (`requestScreening`).
 */
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { AppError, invalidField } from '../kernel/errors.js';
import { callProvider } from '../providers/call.js';
import { businessNow } from '../kernel/clock.js';
import { deliverAfterCommit, type CustomerEnv } from './customerEnv.js';
import { nationalIdHash, openNationalId, sealNationalId } from './identityData.js';
import { expireIfDue, moveSession, sessionRow, type SessionRow } from './onboarding.js';
import { onboardingMachine } from './onboardingStates.js';
import { createProviderRequest } from './providerRequests.js';

type Schemas = components['schemas'];

/** Throws 409 NATIONAL_ID_TAKEN when an ACTIVE customer of the business other than `customerId` has the id's hash. */
export async function assertNationalIdFree(db: Knex, businessId: string, hash: string, customerId: string): Promise<void> {
  const holder = await db('customers')
    .where({ business_id: businessId, national_id_hash: hash, status: 'ACTIVE' })
    .whereNot({ id: customerId })
    .first('id');
  if (holder) throw new AppError('NATIONAL_ID_TAKEN', 'An active customer of the business already has this national id.');
}

/**
 * Asks the identity provider to verify the customer of session `id` (from
 * OTP_VERIFIED only, else 409); the session moves to
 * IDENTITY_VERIFICATION_IN_PROGRESS. 400 for a date of birth not before today,
 * 409 NATIONAL_ID_TAKEN, 503 when the provider fails (nothing written).
 */
export async function initiateIdentityVerification(env: CustomerEnv, id: string, req: Schemas['IdentityVerificationRequest']): Promise<void> {
  const now = await businessNow(env.db, env.businessId);
  if (req.date_of_birth >= now.toISOString().slice(0, 10)) throw invalidField('/date_of_birth', 'must be before today');
  await expireIfDue(env.db, env.businessId, id, now);
  await env.db.transaction(async (trx) => {
    const session = await sessionRow(trx, env.businessId, id, true);
    onboardingMachine.next(session.status, 'INITIATE_IDENTITY_VERIFICATION');
    const hash = nationalIdHash(env.nationalIdKeys, env.businessId, req.national_id);
    await assertNationalIdFree(trx, env.businessId, hash, session.customer_id);
    await trx('customers').where({ id: session.customer_id, business_id: session.business_id }).update({
      national_id_hash: hash,
      ...sealNationalId(env.nationalIdKeys, session.customer_id, req.national_id),
      date_of_birth: req.date_of_birth,
      updated_at: trx.fn.now(3),
    });
    const reference = await createProviderRequest(trx, { businessId: env.businessId, kind: 'IDENTITY', subjectType: 'ONBOARDING', subjectId: session.id });
    const acceptance = await callProvider('IDENTITY_VERIFICATION', env.providers.timeoutMs, () =>
      env.providers.identity.verifyIdentity({ businessId: env.businessId, reference, nationalId: req.national_id, dateOfBirth: req.date_of_birth }),
    );
    await moveSession(trx, session, 'INITIATE_IDENTITY_VERIFICATION');
    deliverAfterCommit(env, acceptance);
  });
}

/**
 * Asks the screening provider to screen the customer of an onboarding session
 * whose identity was just approved. 503 when the provider fails (the caller's
 * transaction, and so the approval, rolls back).
 */
export async function requestScreening(env: CustomerEnv, trx: Knex, session: SessionRow): Promise<void> {
  const customer = await trx('customers').where({ id: session.customer_id, business_id: session.business_id }).first('id', 'full_name', 'national_id_sealed', 'national_id_key_version', 'date_of_birth');
  const reference = await createProviderRequest(trx, { businessId: env.businessId, kind: 'SCREENING', subjectType: 'ONBOARDING', subjectId: session.id });
  const acceptance = await callProvider('SCREENING', env.providers.timeoutMs, () =>
    env.providers.screening.screen({
      businessId: env.businessId,
      reference,
      fullName: customer.full_name,
      nationalId: openNationalId(env.nationalIdKeys, customer),
      dateOfBirth: customer.date_of_birth,
    }),
  );
  deliverAfterCommit(env, acceptance);
}
