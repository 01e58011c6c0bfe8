/**
 * The last onboarding step (seed E8, `completeCustomerInformation`): the
 * customer's KYC information is checked against the published rules (each
 * failure a 400 naming its field), rated by the screening provider, and, in one
 * database transaction, the customer becomes ACTIVE with a wallet (prefix 9,
 * ACTIVE, 0.00, under the business), the session COMPLETED, and
 * `onboarding.complete` is emitted (src/events/outbox.ts) with the seed's data.
 */
import type { components } from '../../generated/types/core.js';
import { AppError, type FieldError } from '../kernel/errors.js';
import { callProvider } from '../providers/call.js';
import { businessNow } from '../kernel/clock.js';
import type { CustomerEnv } from './customerEnv.js';
import { assertNationalIdFree } from './identityVerification.js';
import { assertMobileNumberFree, expireIfDue, moveSession, type SessionRow } from './onboarding.js';
import { onboardingMachine } from './onboardingStates.js';
import { openWalletAccount } from '../ledger/accounts.js';
import { emitEvent } from '../events/outbox.js';

type Schemas = components['schemas'];
type Info = Schemas['CustomerInformationRequest'];

/** Occupation classes of employed people: they need `employer_name`; `SALARY` needs one of them. */
export const EMPLOYED_CLASSES: readonly string[] = ['WORKER', 'GOVERNMENT_EMPLOYEE', 'MILITARY'];
/** Occupation classes of people who work for themselves: `BUSINESS_INCOME` needs one of them. */
export const SELF_EMPLOYED_CLASSES: readonly string[] = ['SELF_EMPLOYED', 'BUSINESS_OWNER'];

/** Every rule the information breaks (the table in core.yaml's completeCustomerInformation), as field errors. */
export function customerInformationErrors(info: Info): FieldError[] {
  const errors: FieldError[] = [];
  const fail = (pointer: string, detail: string) => errors.push({ pointer, detail });
  const employed = EMPLOYED_CLASSES.includes(info.occupation_class);
  const working = employed || SELF_EMPLOYED_CLASSES.includes(info.occupation_class);
  if (info.politically_exposed && !info.pep_relation) fail('/pep_relation', 'is required when politically_exposed is true');
  if (!info.politically_exposed && info.pep_relation) fail('/pep_relation', 'must be absent or null when politically_exposed is false');
  if (employed && !info.employer_name) fail('/employer_name', `is required for occupation_class ${info.occupation_class}`);
  if (working && !info.occupation) fail('/occupation', `is required for occupation_class ${info.occupation_class}`);
  if (!working && info.employer_name) fail('/employer_name', `must be absent for occupation_class ${info.occupation_class}`);
  if (!working && info.occupation) fail('/occupation', `must be absent for occupation_class ${info.occupation_class}`);
  if (info.income_source === 'SALARY' && !employed) fail('/income_source', `SALARY needs an employed occupation_class (${EMPLOYED_CLASSES.join(', ')})`);
  if (info.income_source === 'BUSINESS_INCOME' && !SELF_EMPLOYED_CLASSES.includes(info.occupation_class)) {
    fail('/income_source', `BUSINESS_INCOME needs occupation_class ${SELF_EMPLOYED_CLASSES.join(' or ')}`);
  }
  return errors;
}

/**
 * Completes the onboarding of customer `info.customer_id`. 400
 * VALIDATION_ERROR (every broken rule), 404 CUSTOMER_NOT_FOUND, 409
 * ONBOARDING_STATE_<state> unless its latest session is SCREENING_PASSED, 409
 * NATIONAL_ID_TAKEN or MOBILE_NUMBER_TAKEN (another customer got it meanwhile), 503 when the screening provider cannot rate the profile.
 */
export async function completeCustomerInformation(env: CustomerEnv, info: Info): Promise<Schemas['CustomerInformationCompleted']> {
  const errors = customerInformationErrors(info);
  if (errors.length) throw new AppError('VALIDATION_ERROR', `The customer information breaks ${errors.length} rule${errors.length === 1 ? '' : 's'}.`, { errors });
  const now = await businessNow(env.db, env.businessId);
  const latest = await env.db('onboarding_sessions').where({ business_id: env.businessId, customer_id: info.customer_id }).orderBy('created_at', 'desc').first('id');
  if (latest) await expireIfDue(env.db, env.businessId, latest.id, now);
  await env.db.transaction(async (trx) => {
    const customer = await trx('customers').where({ id: info.customer_id, business_id: env.businessId }).forNoKeyUpdate().first();
    if (!customer || !latest) throw new AppError('CUSTOMER_NOT_FOUND', `No customer ${info.customer_id} for this business.`);
    const session: SessionRow = await trx('onboarding_sessions').where({ id: latest.id, business_id: env.businessId }).forNoKeyUpdate().first();
    onboardingMachine.next(session.status, 'COMPLETE_CUSTOMER_INFORMATION');
    await assertNationalIdFree(trx, env.businessId, customer.national_id_hash, customer.id);
    await assertMobileNumberFree(trx, env.businessId, customer.mobile_number, customer.id);
    const riskRating = await callProvider('SCREENING', env.providers.timeoutMs, () =>
      env.providers.screening.assessRisk({
        businessId: env.businessId,
        politicallyExposed: info.politically_exposed,
        monthlyIncomeRange: info.monthly_income_range,
        occupationClass: info.occupation_class,
      }),
    );
    const wallet = await openWalletAccount(trx, env.businessId, { name: customer.full_name });
    await trx('customers').where({ id: customer.id, business_id: env.businessId }).update({
      status: 'ACTIVE',
      occupation_class: info.occupation_class,
      occupation: info.occupation ?? null,
      employer_name: info.employer_name ?? null,
      income_source: info.income_source,
      monthly_income_range: info.monthly_income_range,
      politically_exposed: info.politically_exposed,
      pep_relation: info.pep_relation ?? null,
      risk_rating: riskRating,
      wallet_id: wallet.id,
      activated_at: now,
      updated_at: trx.fn.now(3),
    });
    await moveSession(trx, session, 'COMPLETE_CUSTOMER_INFORMATION');
    const data: Schemas['OnboardingCompleteData'] = {
      customer_id: customer.id,
      mobile_number: customer.mobile_number,
      status: 'active',
      completed_at: now.toISOString(),
      external_reference: customer.external_reference,
    };
    await emitEvent(trx, env.businessId, 'onboarding.complete', data);
  });
  return { customer_id: info.customer_id };
}
