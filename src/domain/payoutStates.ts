/**
 * The payout state machine (core.yaml, tag Payouts; issue 8). What moves a payout
 * after creation is the payout rail (src/payouts/rail.ts).
 *
 * PENDING → (SUBMIT) PROCESSING → (COMPLETE) COMPLETED | (FAIL) FAILED.
 * The table is enforced under the payout's row lock by the PL/pgSQL `payout_move`
 * (src/db/migrations/011_payouts.ts), which receives each move's `from` states
 * from here; a refused move is 409 PAYOUT_STATUS_NOT_ALLOWED and changes nothing.
 * Each outcome is one balanced ledger transaction (in-transit → wallet, or
 * in-transit → payout account) with its `payout.*` event, in one database transaction.
 */
import type { components } from '../../generated/types/core.js';
import type { Move } from './stateMachine.js';

export type PayoutState = components['schemas']['PayoutStatus'];
export type PayoutEvent = 'SUBMIT' | 'COMPLETE' | 'FAIL';
export type FailureCode = NonNullable<components['schemas']['PayoutFailureCode']>;

/** The payout's moves (the document's table). */
export const PAYOUT_MOVES: Readonly<Record<PayoutEvent, Required<Move<PayoutState>>>> = {
  // Submitted to the rail (the processing job, or the sandbox helper on a PENDING payout).
  SUBMIT: { from: ['PENDING'], to: 'PROCESSING' },
  // The rail paid: in-transit → the customer's wallet.
  COMPLETE: { from: ['PROCESSING'], to: 'COMPLETED' },
  // The rail refused, or the receiver is no longer ACTIVE: in-transit → payout account.
  FAIL: { from: ['PROCESSING'], to: 'FAILED' },
};
