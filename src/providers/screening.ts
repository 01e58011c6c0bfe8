/**
 * Screening provider (AML, sanctions and PEP lists): screens a person whose
 * identity was verified, answering later through the signed callback
 * `POST /callbacks/screening`; and rates the risk of a completed KYC profile,
 * answering at once (used by E8).
 *
 * Sandbox: the national id chooses the screening outcome (./identity.ts,
 * SANDBOX_NATIONAL_IDS), delivered synchronously after commit; the risk is
 * HIGH for a politically exposed person, MEDIUM from an income of 50000 a
 * month, else LOW.
 */
import type { Services } from '../kernel/services.js';
import { ProviderFailure } from './call.js';
import { SANDBOX_NATIONAL_IDS, type Acceptance, type ProviderRequestRef } from './identity.js';
import { failIfOutage } from './outages.js';
import { deliverSignedCallback, newEventId } from './sandboxDelivery.js';
import { callbackSecret } from './signatures.js';

/** A completed KYC profile's risk rating (E8). */
export type RiskRating = 'LOW' | 'MEDIUM' | 'HIGH';

/** What the risk rating looks at. */
export interface RiskProfile {
  businessId: string;
  politicallyExposed: boolean;
  monthlyIncomeRange: string;
  occupationClass: string;
}

/**
 * A screening provider. `screen` accepts a request (its result comes later, through the
 * signed callback, quoting `req.reference`) or throws ProviderFailure when the provider
 * cannot be reached; `assessRisk` answers at once or throws ProviderFailure.
 */
export interface ScreeningProvider {
  screen(req: ProviderRequestRef & { fullName: string; nationalId: string; dateOfBirth: string }): Promise<Acceptance>;
  assessRisk(profile: RiskProfile): Promise<RiskRating>;
}

/**
 * The sandbox's screening provider (see the module comment): the national id chooses
 * the outcome (SANDBOX_NATIONAL_IDS: SCREENING_MATCH is a PEP match, NO_SCREENING_RESULT
 * never answers, any other is CLEAR), delivered as a signed callback after commit. An
 * outage a tester set for the business (./outages.ts) makes both calls throw
 * ProviderFailure.
 */
export class SandboxScreeningProvider implements ScreeningProvider {
  constructor(private readonly services: Services) {}

  async screen(req: ProviderRequestRef & { nationalId: string }): Promise<Acceptance> {
    await failIfOutage(this.services.db, req.businessId, 'SCREENING');
    if (req.nationalId === SANDBOX_NATIONAL_IDS.NO_SCREENING_RESULT) return {};
    const match = req.nationalId === SANDBOX_NATIONAL_IDS.SCREENING_MATCH;
    const secret = await callbackSecret(this.services.db, this.services.config, 'SCREENING');
    const payload = { reference: req.reference, outcome: match ? 'MATCH' : 'CLEAR', match_types: match ? ['PEP'] : [] };
    return {
      deliver: (baseUrl) => deliverSignedCallback(baseUrl, '/callbacks/screening', { event_id: newEventId(), ...payload, occurred_at: new Date().toISOString() }, secret),
    };
  }

  async assessRisk(profile: RiskProfile): Promise<RiskRating> {
    await failIfOutage(this.services.db, profile.businessId, 'SCREENING');
    if (profile.politicallyExposed) return 'HIGH';
    return profile.monthlyIncomeRange === 'RANGE_50000_AND_ABOVE' ? 'MEDIUM' : 'LOW';
  }
}

/** No screening provider configured (SANDBOX=false): every call fails. */
export class UnconfiguredScreeningProvider implements ScreeningProvider {
  async screen(): Promise<Acceptance> {
    throw new ProviderFailure('SCREENING', 'no screening provider is configured');
  }

  async assessRisk(): Promise<RiskRating> {
    throw new ProviderFailure('SCREENING', 'no screening provider is configured');
  }
}
