/**
 * The onboarding session's state machine (published in core.yaml, tag
 * Onboarding): start → OTP verified → identity verification in progress →
 * identity verified (screening in progress) → screening passed → completed
 * (customer ACTIVE). COMPLETED, CANCELLED, EXPIRED and FAILED are final. Every
 * move not in the table is refused with 409 `ONBOARDING_STATE_<current state>`
 * and changes nothing.
 */
import { AppError, type ErrorCode } from '../kernel/errors.js';
import { stateMachine } from '../kernel/stateMachine.js';

export const ONBOARDING_STATES = [
  'PENDING_OTP_VERIFICATION',
  'OTP_VERIFIED',
  'IDENTITY_VERIFICATION_IN_PROGRESS',
  'IDENTITY_VERIFIED',
  'SCREENING_PASSED',
  'COMPLETED',
  'CANCELLED',
  'EXPIRED',
  'FAILED',
] as const;
export type OnboardingState = (typeof ONBOARDING_STATES)[number];

/** States a session cannot leave. */
export const FINAL_ONBOARDING_STATES: readonly OnboardingState[] = ['COMPLETED', 'CANCELLED', 'EXPIRED', 'FAILED'];
const LIVE: OnboardingState[] = ONBOARDING_STATES.filter((s) => !FINAL_ONBOARDING_STATES.includes(s));

export type OnboardingEvent =
  | 'VERIFY_OTP'
  | 'RESEND_OTP'
  | 'INITIATE_IDENTITY_VERIFICATION'
  | 'IDENTITY_APPROVED'
  | 'IDENTITY_REJECTED'
  | 'SCREENING_CLEAR'
  | 'SCREENING_MATCH'
  | 'COMPLETE_CUSTOMER_INFORMATION'
  | 'CANCEL'
  | 'SUPERSEDE'
  | 'EXPIRE';

/** Why a session is in its state, when the state alone does not say. */
export type OnboardingStatusReason = 'CUSTOMER_REQUEST' | 'BUSINESS_DECISION' | 'SUPERSEDED' | 'IDENTITY_REJECTED' | 'SCREENING_MATCH';

export const onboardingMachine = stateMachine<OnboardingState, OnboardingEvent>(
  ONBOARDING_STATES,
  {
    VERIFY_OTP: { from: ['PENDING_OTP_VERIFICATION'], to: 'OTP_VERIFIED' },
    RESEND_OTP: { from: ['PENDING_OTP_VERIFICATION'] },
    INITIATE_IDENTITY_VERIFICATION: { from: ['OTP_VERIFIED'], to: 'IDENTITY_VERIFICATION_IN_PROGRESS' },
    // The identity provider's signed callback; approval also requests the screening.
    IDENTITY_APPROVED: { from: ['IDENTITY_VERIFICATION_IN_PROGRESS'], to: 'IDENTITY_VERIFIED' },
    IDENTITY_REJECTED: { from: ['IDENTITY_VERIFICATION_IN_PROGRESS'], to: 'FAILED' },
    // The screening provider's signed callback.
    SCREENING_CLEAR: { from: ['IDENTITY_VERIFIED'], to: 'SCREENING_PASSED' },
    SCREENING_MATCH: { from: ['IDENTITY_VERIFIED'], to: 'FAILED' },
    // E8: the customer becomes ACTIVE with a wallet; onboarding.complete is written.
    COMPLETE_CUSTOMER_INFORMATION: { from: ['SCREENING_PASSED'], to: 'COMPLETED' },
    CANCEL: { from: LIVE, to: 'CANCELLED' },
    // A new onboarding of the same mobile number replaces a live one.
    SUPERSEDE: { from: LIVE, to: 'CANCELLED' },
    // Read lazily: a live session past its `expires_at` (business clock) is EXPIRED.
    EXPIRE: { from: LIVE, to: 'EXPIRED' },
  },
  (state) => new AppError(`ONBOARDING_STATE_${state}` as ErrorCode, `The onboarding session is ${state}; this step is not allowed now.`),
);

/** True for the states that end a session without an ACTIVE customer. */
export const endsUnsuccessfully = (state: OnboardingState): boolean => state === 'CANCELLED' || state === 'EXPIRED' || state === 'FAILED';
