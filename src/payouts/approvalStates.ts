/**
 * The payout approval state machine (core.yaml, tag Payout Approvals), in the kernel's one
 * form (src/kernel/stateMachine.ts). A request waits PENDING; an approver approves it, which
 * makes its payout (APPROVED) or, when the payout is refused as `createCustomerPayout` would
 * refuse it, leaves it FAILED; anyone allowed rejects it (REJECTED). Every state but PENDING is
 * final. Moves are applied under the request's row lock (./approvals.ts); a refused move is 409
 * PAYOUT_APPROVAL_STATUS_NOT_ALLOWED naming the state, and changes nothing.
 */
import type { components } from '../../generated/types/core.js';
import { AppError } from '../kernel/errors.js';
import { stateMachine } from '../kernel/stateMachine.js';

export type PayoutApprovalState = components['schemas']['PayoutApprovalStatus'];
export type PayoutApprovalEvent = 'APPROVE' | 'FAIL' | 'REJECT';

export const PAYOUT_APPROVAL_STATES: readonly PayoutApprovalState[] = ['PENDING', 'APPROVED', 'FAILED', 'REJECTED'];

/** The approval request's moves (the document's table). */
export const payoutApprovalMachine = stateMachine<PayoutApprovalState, PayoutApprovalEvent>(
  PAYOUT_APPROVAL_STATES,
  {
    // An approver approved and the payout (or bulk payout) was made.
    APPROVE: { from: ['PENDING'], to: 'APPROVED' },
    // An approver approved, but the payout was refused (receiver, whitelist, funds): nothing moved.
    FAIL: { from: ['PENDING'], to: 'FAILED' },
    // Rejected with a reason, by an approver or its maker.
    REJECT: { from: ['PENDING'], to: 'REJECTED' },
  },
  (state) => new AppError('PAYOUT_APPROVAL_STATUS_NOT_ALLOWED', `The payout approval is ${state}; this move is not allowed now.`),
);
