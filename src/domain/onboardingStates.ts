/**
 * The onboarding session's state machine (published in core.yaml, tag
 * Onboarding). A session starts PENDING_OTP_VERIFICATION (a code was sent to
 * the mobile number) and moves on as the table says; CANCELLED and EXPIRED are
 * final. Every move not in the table is refused with 409
 * `ONBOARDING_STATE_<current state>` and changes nothing.
 */
import { AppError, type ErrorCode } from '../errors.js';
import { stateMachine } from './stateMachine.js';

export const ONBOARDING_STATES = ['PENDING_OTP_VERIFICATION', 'OTP_VERIFIED', 'CANCELLED', 'EXPIRED'] as const;
export type OnboardingState = (typeof ONBOARDING_STATES)[number];

/** States a session cannot leave. */
export const FINAL_ONBOARDING_STATES: readonly OnboardingState[] = ['CANCELLED', 'EXPIRED'];
const LIVE: OnboardingState[] = ONBOARDING_STATES.filter((s) => !FINAL_ONBOARDING_STATES.includes(s));

export type OnboardingEvent = 'VERIFY_OTP' | 'RESEND_OTP' | 'CANCEL' | 'EXPIRE' | 'SUPERSEDE';

/** Why a session is in its state, when the state alone does not say. */
export type OnboardingStatusReason = 'CUSTOMER_REQUEST' | 'BUSINESS_DECISION' | 'SUPERSEDED';

export const onboardingMachine = stateMachine<OnboardingState, OnboardingEvent>(
  {
    VERIFY_OTP: { from: ['PENDING_OTP_VERIFICATION'], to: 'OTP_VERIFIED' },
    RESEND_OTP: { from: ['PENDING_OTP_VERIFICATION'], to: 'PENDING_OTP_VERIFICATION' },
    CANCEL: { from: LIVE, to: 'CANCELLED' },
    // A new onboarding of the same mobile number replaces a live one.
    SUPERSEDE: { from: LIVE, to: 'CANCELLED' },
    // Read lazily: a live session past its `expires_at` (business clock) is EXPIRED.
    EXPIRE: { from: LIVE, to: 'EXPIRED' },
  },
  (state) => new AppError(`ONBOARDING_STATE_${state}` as ErrorCode, `The onboarding session is ${state}; this step is not allowed now.`),
);
