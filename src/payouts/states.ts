/**
 * The payout state machine (core.yaml, tag Payouts). What moves a payout
 * after creation is the payout rail (src/payouts/rail.ts).
 *
 * PENDING → (SUBMIT) PROCESSING → (COMPLETE) COMPLETED | (FAIL) FAILED.
 * The table is the kernel's one form (src/kernel/stateMachine.ts). It is enforced
 * under the payout's row lock by the PL/pgSQL `payout_move`
 * (src/payouts/sql/payout_move.sql, called by ./moves.ts), which receives the move's
 * `from` and `to` from here, so the rule is written once; a refused move is 409
 * PAYOUT_STATUS_NOT_ALLOWED and changes nothing.
 * Each outcome is one balanced ledger transaction (in-transit → wallet, or
 * in-transit → payout account) with its `payout.*` event, in one database transaction.
 */
import type { components } from '../../generated/types/core.js';
import { AppError } from '../kernel/errors.js';
import { stateMachine } from '../kernel/stateMachine.js';

export type PayoutState = components['schemas']['PayoutStatus'];
export type PayoutEvent = 'SUBMIT' | 'COMPLETE' | 'FAIL';
export type FailureCode = NonNullable<components['schemas']['PayoutFailureCode']>;

export const PAYOUT_STATES: readonly PayoutState[] = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'];

/** The payout's moves (the document's table). */
export const payoutMachine = stateMachine<PayoutState, PayoutEvent>(
  PAYOUT_STATES,
  {
  // Submitted to the rail (the processing job, or the sandbox helper on a PENDING payout).
  SUBMIT: { from: ['PENDING'], to: 'PROCESSING' },
  // The rail paid: in-transit → the customer's wallet.
  COMPLETE: { from: ['PROCESSING'], to: 'COMPLETED' },
  // The rail refused, or the receiver is no longer ACTIVE: in-transit → payout account.
  FAIL: { from: ['PROCESSING'], to: 'FAILED' },
  },
  (state) => new AppError('PAYOUT_STATUS_NOT_ALLOWED', `The payout is ${state}; this move is not allowed now.`),
);
