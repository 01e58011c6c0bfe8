/**
 * The mobile number change session's state machine (published in core.yaml,
 * tag Wallet). A change proves two things about the new number: the customer
 * holds it (the OTP sent to it) and it is registered to the customer's
 * national id (the identity provider's ownership check, answered by signed
 * callback). From the login screen, where the customer cannot log in, the
 * customer's identity is verified again after the OTP. The change completes
 * once every check passed, whichever comes last. COMPLETED, FAILED, EXPIRED
 * and CANCELLED are final; a refused move is 409
 * `MOBILE_CHANGE_STATE_<current state>` and changes nothing.
 */
import { AppError, type ErrorCode } from '../../kernel/errors.js';
import { stateMachine } from '../../kernel/stateMachine.js';

export const MOBILE_CHANGE_STATES = [
  'PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION',
  'PENDING_IDENTITY_VERIFICATION',
  'IDENTITY_VERIFICATION_IN_PROGRESS',
  'AWAITING_OWNERSHIP_CHECK',
  'COMPLETED',
  'FAILED',
  'EXPIRED',
  'CANCELLED',
] as const;
export type MobileChangeState = (typeof MOBILE_CHANGE_STATES)[number];

export const FINAL_MOBILE_CHANGE_STATES: readonly MobileChangeState[] = ['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED'];
const LIVE: MobileChangeState[] = MOBILE_CHANGE_STATES.filter((s) => !FINAL_MOBILE_CHANGE_STATES.includes(s));

export type MobileChangeEvent =
  | 'VERIFY_OTP'
  | 'LOGIN_OTP_VERIFIED'
  | 'INITIATE_IDENTITY_VERIFICATION'
  | 'IDENTITY_RESULT'
  | 'OWNERSHIP_CONFIRMED'
  | 'AWAIT_OWNERSHIP_CHECK'
  | 'COMPLETE'
  | 'FAIL'
  | 'EXPIRE'
  | 'SUPERSEDE';

/** Why a session ended as it did. */
export type MobileChangeStatusReason =
  | 'OWNERSHIP_REJECTED'
  | 'IDENTITY_REJECTED'
  | 'OTP_MAX_ATTEMPTS_REACHED'
  | 'MOBILE_NUMBER_TAKEN'
  | 'SUPERSEDED';

export const mobileChangeMachine = stateMachine<MobileChangeState, MobileChangeEvent>(
  MOBILE_CHANGE_STATES,
  {
    // The steps a client or provider may take, and the state each may be taken in (VERIFY_OTP and
    // IDENTITY_RESULT are then followed by one of the moves below).
    VERIFY_OTP: { from: ['PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION'] },
    IDENTITY_RESULT: { from: ['IDENTITY_VERIFICATION_IN_PROGRESS'] },
    // Login screen: the code proved the number; the customer's identity is verified next.
    LOGIN_OTP_VERIFIED: { from: ['PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION'], to: 'PENDING_IDENTITY_VERIFICATION' },
    INITIATE_IDENTITY_VERIFICATION: { from: ['PENDING_IDENTITY_VERIFICATION'], to: 'IDENTITY_VERIFICATION_IN_PROGRESS' },
    // The provider confirms the number is registered to the customer's national id: recorded, the state stays.
    OWNERSHIP_CONFIRMED: { from: ['PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION', 'PENDING_IDENTITY_VERIFICATION', 'IDENTITY_VERIFICATION_IN_PROGRESS'] },
    // The customer's steps are done before the provider's ownership result.
    AWAIT_OWNERSHIP_CHECK: { from: ['PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION', 'IDENTITY_VERIFICATION_IN_PROGRESS'], to: 'AWAITING_OWNERSHIP_CHECK' },
    // Every check passed: the number changes and the old number is told.
    COMPLETE: {
      from: ['PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION', 'IDENTITY_VERIFICATION_IN_PROGRESS', 'AWAITING_OWNERSHIP_CHECK'],
      to: 'COMPLETED',
    },
    // Ownership or identity rejected, the code's attempts used up, or the number taken by
    // another customer by the time everything passed.
    FAIL: { from: LIVE, to: 'FAILED' },
    // Read lazily: a live session past its `expires_at` (business clock) is EXPIRED.
    EXPIRE: { from: LIVE, to: 'EXPIRED' },
    // A newer change of the same customer replaces a live one.
    SUPERSEDE: { from: LIVE, to: 'CANCELLED' },
  },
  (state) => new AppError(`MOBILE_CHANGE_STATE_${state}` as ErrorCode, `The mobile number change is ${state}; this step is not allowed now.`),
);
