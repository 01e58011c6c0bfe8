/**
 * The customers' face (src/kernel/capability.ts). Its start derives the national ids' keys
 * once (src/customers/identityData.ts: NATIONAL_ID_KEY, docs/configuration.md) and seals
 * again the national ids sealed under an older key; customers start no worker.
 */
import { NOTHING_TO_STOP, type StartContext, type Started } from '../kernel/capability.js';
import { nationalIdKeys, resealNationalIds } from './identityData.js';

/** Derives the national ids' keys and re-seals older values under the current one. */
export async function start({ db, config, log }: StartContext): Promise<Started> {
  const keys = await nationalIdKeys(db, config);
  const resealed = await resealNationalIds(db, keys);
  if (resealed.resealed) log.info({ resealed: resealed.resealed }, 'national ids sealed again under the current national-id key');
  if (resealed.unreadable) log.warn({ unreadable: resealed.unreadable }, 'national ids under a key version not configured: they cannot be sent to a provider');
  return { stop: NOTHING_TO_STOP, keys: { nationalIds: keys } };
}

// What the handlers and the capabilities above call (the face is the only door: .dependency-cruiser.cjs).
export { customerContact, customerStanding } from './contact.js';
export { runAfterCommit, type CustomerEnv, type ServiceEnv } from './customerEnv.js';
export { completeCustomerInformation } from './customerInformation.js';
export { CUSTOMER_CSV_COLUMNS, getCustomer, listCustomers } from './customers.js';
export { initiateIdentityVerification } from './identityVerification.js';
export { getMobileNumberChange, initiateLoginIdentityVerification, startMobileNumberChange, verifyMobileNumberChangeOtp } from './mobileNumberChange/requests.js';
export { cancelOnboardingSession, getOnboardingSession, resendOnboardingOtp, startOnboarding, verifyOnboardingOtp } from './onboarding.js';
export { receiveIdentityVerificationResult, receiveMobileOwnershipResult, receiveScreeningResult, type CallbackAcknowledgement } from './providerCallbacks.js';
export { searchCustomers } from './search.js';
