/**
 * Identity verification provider: checks a person's identity (national id and
 * date of birth) and whether a mobile number belongs to a national id. Both
 * answer later, through the signed callbacks `POST /callbacks/identity-verification`
 * and `POST /callbacks/mobile-ownership`, quoting our `reference`.
 *
 * Sandbox: the national id (or mobile number) chooses the outcome, and the
 * result is delivered synchronously after commit (./sandboxDelivery.ts).
 */
import type { Services } from '../kernel/services.js';
import { ProviderFailure } from './call.js';
import { failIfOutage } from './outages.js';
import { deliverSignedCallback, newEventId, type Delivery } from './sandboxDelivery.js';
import { callbackSecret } from './signatures.js';

/** A request to a provider: for which business, and the reference its callback will quote. */
export interface ProviderRequestRef {
  businessId: string;
  reference: string;
}

/** The provider accepted the request; the sandbox also says how its result will arrive. */
export interface Acceptance {
  deliver?: Delivery;
}

/**
 * An identity verification provider. Each call accepts a request (its result comes later,
 * through the signed callback, quoting `req.reference`) or throws ProviderFailure when the
 * provider cannot be reached.
 */
export interface IdentityVerificationProvider {
  verifyIdentity(req: ProviderRequestRef & { nationalId: string; dateOfBirth: string }): Promise<Acceptance>;
  checkMobileOwnership(req: ProviderRequestRef & { nationalId: string; mobileNumber: string }): Promise<Acceptance>;
}

/** Sandbox test national ids (documented in core.yaml); any other id is approved and screened clear. */
export const SANDBOX_NATIONAL_IDS = {
  IDENTITY_REJECTED: '1000000002',
  IDENTITY_TIMEOUT: '1000000003',
  SCREENING_MATCH: '1000000004',
  NO_IDENTITY_RESULT: '1000000006',
  NO_SCREENING_RESULT: '1000000007',
} as const;

/** Sandbox test mobile numbers of the ownership check; any other number is confirmed. */
export const SANDBOX_MOBILE_NUMBERS = {
  OWNERSHIP_REJECTED: '966500000002',
  OWNERSHIP_TIMEOUT: '966500000003',
  NO_OWNERSHIP_RESULT: '966500000006',
} as const;

/**
 * The sandbox's identity verification provider (see the module comment): the national id
 * (SANDBOX_NATIONAL_IDS) or the mobile number (SANDBOX_MOBILE_NUMBERS) chooses the outcome:
 * rejected, no answer (ProviderFailure, as a time-out), no result ever, or else approved
 * (with a sandbox full name) or confirmed, delivered as a signed callback after commit. An
 * outage a tester set for the business (./outages.ts) makes every call throw ProviderFailure.
 */
export class SandboxIdentityVerificationProvider implements IdentityVerificationProvider {
  constructor(private readonly services: Services) {}

  private async result(path: string, payload: object): Promise<Acceptance> {
    const secret = await callbackSecret(this.services.db, this.services.config, 'IDENTITY_VERIFICATION');
    return { deliver: (baseUrl) => deliverSignedCallback(baseUrl, path, { event_id: newEventId(), ...payload, occurred_at: new Date().toISOString() }, secret) };
  }

  async verifyIdentity(req: ProviderRequestRef & { nationalId: string }): Promise<Acceptance> {
    await failIfOutage(this.services.db, req.businessId, 'IDENTITY_VERIFICATION');
    if (req.nationalId === SANDBOX_NATIONAL_IDS.IDENTITY_TIMEOUT) throw new ProviderFailure('IDENTITY_VERIFICATION', 'sandbox test id: no answer');
    if (req.nationalId === SANDBOX_NATIONAL_IDS.NO_IDENTITY_RESULT) return {};
    const approved = req.nationalId !== SANDBOX_NATIONAL_IDS.IDENTITY_REJECTED;
    return this.result('/callbacks/identity-verification', {
      reference: req.reference,
      outcome: approved ? 'APPROVED' : 'REJECTED',
      full_name: approved ? `Sandbox Customer ${req.nationalId.slice(-4)}` : null,
      rejection_reason: approved ? null : 'DATA_MISMATCH',
    });
  }

  async checkMobileOwnership(req: ProviderRequestRef & { mobileNumber: string }): Promise<Acceptance> {
    await failIfOutage(this.services.db, req.businessId, 'IDENTITY_VERIFICATION');
    if (req.mobileNumber === SANDBOX_MOBILE_NUMBERS.OWNERSHIP_TIMEOUT) throw new ProviderFailure('IDENTITY_VERIFICATION', 'sandbox test number: no answer');
    if (req.mobileNumber === SANDBOX_MOBILE_NUMBERS.NO_OWNERSHIP_RESULT) return {};
    return this.result('/callbacks/mobile-ownership', {
      reference: req.reference,
      outcome: req.mobileNumber === SANDBOX_MOBILE_NUMBERS.OWNERSHIP_REJECTED ? 'REJECTED' : 'CONFIRMED',
    });
  }
}

/** No identity verification provider configured (SANDBOX=false): every call fails. */
export class UnconfiguredIdentityVerificationProvider implements IdentityVerificationProvider {
  async verifyIdentity(): Promise<Acceptance> {
    throw new ProviderFailure('IDENTITY_VERIFICATION', 'no identity verification provider is configured');
  }

  async checkMobileOwnership(): Promise<Acceptance> {
    throw new ProviderFailure('IDENTITY_VERIFICATION', 'no identity verification provider is configured');
  }
}
