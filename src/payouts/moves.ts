/**
 * Moving a payout along its state table (./states.ts): one statement, the PL/pgSQL
 * `payout_move`, which checks the move under the payout's row lock and posts its
 * ledger transaction and event.
 */
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import type { Refusal } from '../kernel/errors.js';
import { payoutMachine, type FailureCode, type PayoutEvent } from './states.js';

type Schemas = components['schemas'];

/** What `payout_move` answers: the payout's new state, or a refusal (nothing changed). */
export type PayoutMoveResult = { payout: { id: string; status: Schemas['PayoutStatus'] } } | { refusal: Refusal };

/**
 * Applies `event` (./states.ts) to payout `payoutId` of the business in one
 * statement: refusals PAYOUT_NOT_FOUND and PAYOUT_STATUS_NOT_ALLOWED are returned.
 * `failureCode` is the FAIL event's reason.
 */
export async function payoutMove(db: Knex, businessId: string, payoutId: string, event: PayoutEvent, failureCode?: FailureCode): Promise<PayoutMoveResult> {
  const { from, to } = payoutMachine.moves[event];
  const { rows } = await db.raw("SELECT payout_move(?::uuid, ?::uuid, string_to_array(?, ','), ?, ?) AS result", [
    businessId,
    payoutId,
    from.join(','),
    to!, // every payout move enters a state
    failureCode ?? null,
  ]);
  return rows[0].result as PayoutMoveResult;
}
