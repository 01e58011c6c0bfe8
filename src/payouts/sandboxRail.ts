/**
 * The sandbox's payout rail: no bank, a documented rule (core document, tag Payouts)
 * by the amount's cents, applied PAYOUT_PROCESSING_MS after the payout became
 * PROCESSING: `.13` fails REJECTED_BY_BANK, `.14` fails TIMEOUT, `.98` stays PENDING
 * (never submitted) and `.99` stays PROCESSING until the tester decides
 * (`setSandboxPayoutOutcome`, or a signed `receivePayoutRailResult`), any other
 * completes.
 */
import { Decimal } from 'decimal.js';
import type { PayoutRail, RailDecision, RailPayout } from './rail.js';

/** The cents of `amount` (a numeric(20,2) string), 0 to 99. */
const centsOf = (amount: string): number => new Decimal(amount).mul(100).mod(100).toNumber();

/**
 * The sandbox's payout rail (see the module comment): it decides each payout by its
 * amount's cents when its submission runs, on the payout processing queue, and never calls out.
 */
export class SandboxPayoutRail implements PayoutRail {
  /** Submissions run on the payout processing queue: they decide at once, nothing calls out. */
  readonly queue = null;

  /** `submitAfterMs`: how long a payout stays PROCESSING before its outcome (PAYOUT_PROCESSING_MS). */
  constructor(readonly submitAfterMs: number) {}

  submits(amount: string): boolean {
    return centsOf(amount) !== 98;
  }

  /** The sandbox rail never refuses a submission. */
  retryDelayMs(): number {
    return 0;
  }

  async submit(payout: RailPayout): Promise<RailDecision> {
    switch (centsOf(payout.amount)) {
      case 13:
        return { event: 'FAIL', failureCode: 'REJECTED_BY_BANK' };
      case 14:
        return { event: 'FAIL', failureCode: 'TIMEOUT' };
      case 99:
        return null;
      default:
        return { event: 'COMPLETE' };
    }
  }
}
