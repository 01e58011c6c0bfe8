/**
 * The payout state machine (core.yaml, tag Payouts; issue 8) and the sandbox's
 * automatic outcome rule.
 *
 * PENDING → (SUBMIT) PROCESSING → (COMPLETE) COMPLETED | (FAIL) FAILED.
 * The table is enforced under the payout's row lock by the PL/pgSQL `payout_move`
 * (src/payouts/sql/payout_move.sql), which receives each move's `from` states
 * from here; a refused move is 409 PAYOUT_STATUS_NOT_ALLOWED and changes nothing.
 * Each outcome is one balanced ledger transaction (in-transit → wallet, or
 * in-transit → payout account) with its `payout.*` event, in one database transaction.
 */
import { Decimal } from 'decimal.js';
import type { components } from '../../generated/types/core.js';
import type { Move } from './stateMachine.js';

export type PayoutState = components['schemas']['PayoutStatus'];
export type PayoutEvent = 'SUBMIT' | 'COMPLETE' | 'FAIL';
export type FailureCode = NonNullable<components['schemas']['PayoutFailureCode']>;

/** The payout's moves (the document's table). */
export const PAYOUT_MOVES: Readonly<Record<PayoutEvent, Required<Move<PayoutState>>>> = {
  // Submitted to the bank (the processing job, or the sandbox helper on a PENDING payout).
  SUBMIT: { from: ['PENDING'], to: 'PROCESSING' },
  // The bank paid: in-transit → the customer's wallet.
  COMPLETE: { from: ['PROCESSING'], to: 'COMPLETED' },
  // The bank refused, or the receiver is no longer ACTIVE: in-transit → payout account.
  FAIL: { from: ['PROCESSING'], to: 'FAILED' },
};

/** What the automatic processing does with a payout of `amount` (a numeric(20,2) string). */
export type AutomaticOutcome =
  | { hold: 'PENDING' | 'PROCESSING' }
  | { event: 'COMPLETE' }
  | { event: 'FAIL'; failureCode: FailureCode };

/**
 * The documented sandbox rule, by the amount's cents: .13 fails REJECTED_BY_BANK,
 * .14 fails TIMEOUT, .98 stays PENDING and .99 stays PROCESSING until the test
 * helper decides, any other completes. Outside the sandbox every payout completes
 * (there is no bank connection yet).
 */
export function automaticOutcome(amount: string, sandbox: boolean): AutomaticOutcome {
  if (!sandbox) return { event: 'COMPLETE' };
  const cents = new Decimal(amount).mul(100).mod(100).toNumber();
  switch (cents) {
    case 13:
      return { event: 'FAIL', failureCode: 'REJECTED_BY_BANK' };
    case 14:
      return { event: 'FAIL', failureCode: 'TIMEOUT' };
    case 98:
      return { hold: 'PENDING' };
    case 99:
      return { hold: 'PROCESSING' };
    default:
      return { event: 'COMPLETE' };
  }
}
