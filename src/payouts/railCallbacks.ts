/**
 * The payout rail's signed callback (`receivePayoutRailResult`; the signature was checked
 * before, src/http/signatures.ts): the outcome of a payout the rail was given. In one
 * transaction: find the payout (404 PAYOUT_NOT_FOUND), claim the event id (409
 * CALLBACK_REPLAYED), then `payout_move` COMPLETE or FAIL along the state table. A result
 * for a payout that already has that outcome is acknowledged IGNORED (the rail sent it
 * again under a new event id); one that contradicts the payout's state (another outcome,
 * or a payout never submitted) is 409 PAYOUT_STATUS_NOT_ALLOWED and changes nothing, so the
 * rail learns that the two sides disagree and a person must look.
 *
 * The payout is looked up within the business the callback names (`business_id`, which
 * the rail's submission gave the connector): distributed by business (docs/scale-out.md),
 * the whole callback then runs on that business's node. A callback without it (a
 * connector that does not echo it) finds the payout by id alone, a query of every shard.
 */
import { acrossBusinesses } from '../db/acrossBusinesses.js';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { AppError, invalidField, refusalError } from '../kernel/errors.js';
import { payoutMove } from './moves.js';
import { claimCallbackEvent } from '../providers/callbackEvents.js';

type Schemas = components['schemas'];

/**
 * Applies the rail's result `result` (see the module comment). Throws 400
 * VALIDATION_ERROR (failure_code missing for FAILED, or given for COMPLETED), 404
 * PAYOUT_NOT_FOUND, 409 CALLBACK_REPLAYED or PAYOUT_STATUS_NOT_ALLOWED.
 */
export async function receivePayoutRailResult(db: Knex, result: Schemas['PayoutRailResult']): Promise<Schemas['CallbackAcknowledgement']> {
  const failed = result.outcome === 'FAILED';
  if (failed && !result.failure_code) throw invalidField('/failure_code', 'is required when outcome is FAILED');
  if (!failed && result.failure_code) throw invalidField('/failure_code', 'is for outcome FAILED only');
  // A callback that does not echo the submission's business_id finds the payout by its id
  // alone: a read across businesses (docs/scale-out.md); everything after it names the business.
  const find = (q: Knex) => q('payouts').where({ id: result.payout_id, ...(result.business_id ? { business_id: result.business_id } : {}) }).first('business_id');
  const found = result.business_id ? await find(db) : await acrossBusinesses(db, find);
  if (!found) throw new AppError('PAYOUT_NOT_FOUND', `No payout ${result.payout_id}.`);
  return db.transaction(async (trx) => {
    const payout = { business_id: found.business_id as string };
    await claimCallbackEvent(trx, 'PAYOUT_RAIL', result.event_id, payout.business_id);
    const moved = await payoutMove(trx, payout.business_id, result.payout_id, failed ? 'FAIL' : 'COMPLETE', result.failure_code);
    if (!('refusal' in moved)) return { event_id: result.event_id, result: 'APPLIED' };
    // The refused move locked the payout: its state is final as read here.
    const now = await trx('payouts').where({ id: result.payout_id, business_id: payout.business_id }).first('status', 'failure_code');
    // A completion whose receiver was no longer ACTIVE was applied as a return (RECEIVER_NOT_ACTIVE).
    const same = now.status === result.outcome || (!failed && now.status === 'FAILED' && now.failure_code === 'RECEIVER_NOT_ACTIVE');
    if (same) return { event_id: result.event_id, result: 'IGNORED' };
    throw refusalError(moved.refusal)!;
  });
}
