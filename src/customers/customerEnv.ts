/**
 * What the customer flows (onboarding, mobile number change, provider callbacks)
 * work with beyond an OTP flow's environment (src/kernel/otp/flowEnv.ts): the
 * providers, the keys of the national ids at rest, and the work to do once the
 * caller's transaction has committed (the sandbox providers' deliveries). Also the
 * OTP policy of these flows.
 */
import type { Acceptance } from '../providers/identity.js';
import type { Providers } from '../providers/index.js';
import type { FlowEnv } from '../kernel/otp/flowEnv.js';
import type { OtpPolicy } from '../kernel/otp/otp.js';
import type { NationalIdKeys } from './identityData.js';

/** The environment of a request, before it is known which business it acts for (callbacks). */
export interface ServiceEnv extends Omit<FlowEnv, 'businessId'> {
  providers: Providers;
  /** Keys of the national ids at rest. */
  nationalIdKeys: NationalIdKeys;
  /** The service's own base URL, where the sandbox providers deliver their callbacks. */
  selfUrl: string;
  /** Run by `runAfterCommit` once the request's transaction has committed. */
  afterCommit: (() => Promise<void>)[];
}

/** The environment of a customer flow acting for a business. */
export interface CustomerEnv extends ServiceEnv, FlowEnv {}

/** Arranges for a provider's sandbox result to be delivered once the caller has committed. */
export function deliverAfterCommit(env: ServiceEnv, acceptance: Acceptance): void {
  const deliver = acceptance.deliver;
  if (deliver) env.afterCommit.push(() => deliver(env.selfUrl));
}

/** Runs the work arranged for after the commit, in order (deliveries never throw). */
export async function runAfterCommit(env: ServiceEnv): Promise<void> {
  for (const task of env.afterCommit.splice(0)) await task();
}

/**
 * Codes of the customer flows: 6 digits, valid 5 minutes, 5 attempts, a new
 * one 60 seconds after the last at the earliest and at most 3 times (documented
 * in core.yaml's info).
 */
export const CUSTOMER_OTP_POLICY: OtpPolicy = { digits: 6, ttlSeconds: 300, maxAttempts: 5, resendCooldownSeconds: 60, maxResends: 3 };
