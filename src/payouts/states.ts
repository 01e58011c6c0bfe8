/**
 * The payout state machine (core.yaml, tag Payouts) and the sandbox's
 * automatic outcome rule.
 *
 * PENDING → (SUBMIT) PROCESSING → (COMPLETE) COMPLETED | (FAIL) FAILED.
 * The table is the kernel's one form (src/kernel/stateMachine.ts). It is enforced
 * under the payout's row lock by the PL/pgSQL `payout_move` (./moves.ts), which
 * receives the move's `from` and `to` from here, so the rule is written once; a
 * refused move is 409 PAYOUT_STATUS_NOT_ALLOWED and changes nothing.
 * Each outcome is one balanced ledger transaction (in-transit → wallet, or
 * in-transit → payout account) with its `payout.*` event, in one database transaction.
 */
import { Decimal } from 'decimal.js';
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
  // Submitted to the bank (the processing job, or the sandbox helper on a PENDING payout).
  SUBMIT: { from: ['PENDING'], to: 'PROCESSING' },
  // The bank paid: in-transit → the customer's wallet.
  COMPLETE: { from: ['PROCESSING'], to: 'COMPLETED' },
  // The bank refused, or the receiver is no longer ACTIVE: in-transit → payout account.
  FAIL: { from: ['PROCESSING'], to: 'FAILED' },
  },
  (state) => new AppError('PAYOUT_STATUS_NOT_ALLOWED', `The payout is ${state}; this move is not allowed now.`),
);

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
