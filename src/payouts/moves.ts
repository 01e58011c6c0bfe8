/**
 * Moving a payout along its state table (./states.ts): one statement, the PL/pgSQL
 * `payout_move`, which checks the move under the payout's row lock and posts its
 * ledger transaction and event. The transactions posted are reported to the metrics
 * (reportPosted, src/ledger/posted.ts).
 */
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import type { Refusal } from '../kernel/errors.js';
import type { TransactionType } from '../ledger/ledger.js';
import { reportPosted } from '../ledger/posted.js';
import { payoutMachine, type FailureCode, type PayoutEvent } from './states.js';

type Schemas = components['schemas'];

/**
 * What `payout_move` answers: the payout's new state and the type of the ledger transaction
 * the move posted (null for a submission, which moves no money), or a refusal (nothing changed).
 */
export type PayoutMoveResult = { payout: { id: string; status: Schemas['PayoutStatus'] }; posted: TransactionType | null } | { refusal: Refusal };

/** The types of the ledger transactions `results` posted, for reportPosted. */
const postedTypes = (results: PayoutMoveResult[]) => results.map((r) => ('posted' in r ? r.posted : null));

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
  const result = rows[0].result as PayoutMoveResult;
  reportPosted(db, postedTypes([result]));
  return result;
}

/** One move of a batch: `event` (./states.ts) for payout `payoutId`, with `failureCode` for FAIL. */
export interface PayoutMoveRequest {
  payoutId: string;
  event: PayoutEvent;
  failureCode?: FailureCode;
}

/**
 * Applies `moves` (payouts of one business) in one statement and one transaction,
 * `payout_move_batch`: each move as `payoutMove` would apply it alone, payouts locked
 * first and accounts after (wallets before the business's own), each in id order. Returns the results in order.
 */
export async function payoutMoves(db: Knex, businessId: string, moves: PayoutMoveRequest[]): Promise<PayoutMoveResult[]> {
  const batch = moves.map((m) => {
    const { from, to } = payoutMachine.moves[m.event];
    return { payout_id: m.payoutId, from, to, failure_code: m.failureCode ?? null };
  });
  const { rows } = await db.raw('SELECT payout_move_batch(?::uuid, ?::jsonb) AS results', [businessId, JSON.stringify(batch)]);
  const results = rows[0].results as PayoutMoveResult[];
  reportPosted(db, postedTypes(results));
  return results;
}
