/**
 * The providers the customer flows use, chosen by configuration: the sandbox
 * implementations when SANDBOX=true, otherwise the unconfigured ones (every
 * call fails with 503) until production adapters are added behind the same
 * interfaces.
 */
import type { Services } from '../kernel/services.js';
import {
  SandboxIdentityVerificationProvider,
  UnconfiguredIdentityVerificationProvider,
  type IdentityVerificationProvider,
} from './identity.js';
import { SandboxScreeningProvider, UnconfiguredScreeningProvider, type ScreeningProvider } from './screening.js';
import { SandboxSmsSender, UnconfiguredSmsSender, type SmsSender } from './sms.js';

/** The external providers of onboarding and mobile-number change, and their calls' time limit. */
export interface Providers {
  sms: SmsSender;
  identity: IdentityVerificationProvider;
  screening: ScreeningProvider;
  /** Time limit of one provider call, milliseconds. */
  timeoutMs: number;
}

const cache = new WeakMap<Services, Providers>();

/** The providers of a running service (one set per service). */
export function providersOf(services: Services): Providers {
  let providers = cache.get(services);
  if (!providers) {
    const sandbox = services.config.sandbox;
    providers = {
      sms: sandbox ? new SandboxSmsSender(services.db) : new UnconfiguredSmsSender(),
      identity: sandbox ? new SandboxIdentityVerificationProvider(services) : new UnconfiguredIdentityVerificationProvider(),
      screening: sandbox ? new SandboxScreeningProvider(services) : new UnconfiguredScreeningProvider(),
      timeoutMs: services.config.providerTimeoutMs,
    };
    cache.set(services, providers);
  }
  return providers;
}
