/**
 * Storage of mobile number change sessions: the row, its view, its moves by the
 * state machine (./states.ts) and its lazy expiry.
 */
import type { Knex } from 'knex';
import type { components } from '../../../generated/types/core.js';
import { AppError } from '../../kernel/errors.js';
import type { Locale } from '../../kernel/otp/messages.js';
import { otpOperationOf } from '../../kernel/otp/otp.js';
import { mobileChangeMachine, type MobileChangeEvent, type MobileChangeState, type MobileChangeStatusReason } from './states.js';
import { expireRowIfDue, moveRow } from '../../kernel/stateMachine.js';

export type MobileNumberChangeView = components['schemas']['MobileNumberChangeSession'];
export type Channel = 'PROFILE' | 'LOGIN';

/** A change session expires 30 minutes after its start (business clock). */
export const MOBILE_CHANGE_SESSION_TTL_SECONDS = 30 * 60;

/** States a session can still leave. */
export const LIVE_CHANGE_STATES = mobileChangeMachine.moves.EXPIRE.from;

/** A row of `mobile_number_change_sessions`. */
export interface ChangeRow {
  id: string;
  business_id: string;
  customer_id: string;
  channel: Channel;
  status: MobileChangeState;
  status_reason: MobileChangeStatusReason | null;
  old_mobile_number: string;
  new_mobile_number: string;
  locale: Locale;
  otp_operation_id: string;
  ownership_check: 'PENDING' | 'CONFIRMED' | 'REJECTED';
  expires_at: Date;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The session as the API shows it. */
export async function toChangeView(db: Knex, row: ChangeRow): Promise<MobileNumberChangeView> {
  const otp = await otpOperationOf(db, row.business_id, row.otp_operation_id);
  return {
    session_id: row.id,
    customer_id: row.customer_id,
    status: row.status,
    status_reason: row.status_reason,
    new_mobile_number: row.new_mobile_number,
    ownership_check: row.ownership_check,
    otp_expires_at: row.status === 'PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION' ? otp.expires_at.toISOString() : null,
    expires_at: row.expires_at.toISOString(),
    completed_at: row.completed_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** Applies `event` to a locked session (409 MOBILE_CHANGE_STATE_<state> when the table does not allow it). */
export function moveChange(
  trx: Knex,
  row: ChangeRow,
  event: MobileChangeEvent,
  changes: Partial<Pick<ChangeRow, 'status_reason' | 'ownership_check' | 'completed_at'>> = {},
): Promise<ChangeRow> {
  return moveRow<ChangeRow, MobileChangeEvent>(trx, 'mobile_number_change_sessions', mobileChangeMachine, row, event, changes);
}

/** The session `id` of the channel, locked when `lock`; 404 (also another business's, or the other channel's). */
export async function changeRow(db: Knex, businessId: string, channel: Channel, id: string, lock: boolean): Promise<ChangeRow> {
  const query = db('mobile_number_change_sessions').where({ id, business_id: businessId, channel });
  if (lock) query.forNoKeyUpdate();
  const row = await query.first();
  if (!row) throw new AppError('MOBILE_NUMBER_CHANGE_SESSION_NOT_FOUND', `No mobile number change ${id} for this business.`);
  return row;
}

/** Records the expiry of a live session past its `expires_at`, on its own (it stays recorded whatever follows). */
export async function expireChangeIfDue(db: Knex, businessId: string, id: string, now: Date): Promise<void> {
  await expireRowIfDue<ChangeRow>(db, 'mobile_number_change_sessions', { id, business_id: businessId, live: LIVE_CHANGE_STATES, now }, (trx, row) =>
    moveChange(trx, row, 'EXPIRE'),
  );
}
