/**
 * The business clock: real time plus the business's sandbox offset
 * (`sandbox_clocks`, moved only forward by the test helper
 * `POST /testhelpers/clock`). Every time-based rule of the customer flows (OTP
 * expiry and resend cool-down, session expiry, the one-change-per-24-hours
 * rule) reads `businessNow`, so a tester can try them without waiting; one
 * business's offset never touches another's. Outside the sandbox no offset is
 * ever written, so the clock is real time.
 */
import type { Knex } from 'knex';
import { invalidField } from './errors.js';

/** Most a single call may move a clock: 30 days, in seconds. */
export const MAX_CLOCK_ADVANCE_SECONDS = 30 * 24 * 3600;

/** Furthest a clock may run ahead in total: 100 years, in seconds. */
export const MAX_CLOCK_OFFSET_SECONDS = 100 * 365 * 24 * 3600;

/** The business's current time (real time + its sandbox offset). */
export async function businessNow(db: Knex, businessId: string): Promise<Date> {
  const row = await db('sandbox_clocks').where({ business_id: businessId }).first('offset_ms');
  return new Date(Date.now() + Number(row?.offset_ms ?? 0));
}

/** The clock of one business as the sandbox helper shows it. */
export interface SandboxClockView {
  offset_seconds: number;
  now: string;
}

/**
 * Moves the business's clock `seconds` forward (1 to MAX_CLOCK_ADVANCE_SECONDS;
 * the document bounds it) and returns it. Concurrent calls add up.
 */
export async function advanceClock(db: Knex, businessId: string, seconds: number): Promise<SandboxClockView> {
  const [row] = await db('sandbox_clocks')
    .insert({ business_id: businessId, offset_ms: seconds * 1000 })
    .onConflict('business_id')
    // The new row's time, not now(): on Citus an upsert's SET may call no function that is not immutable.
    .merge({ offset_ms: db.raw('sandbox_clocks.offset_ms + excluded.offset_ms'), updated_at: db.raw('excluded.updated_at') })
    .where('sandbox_clocks.offset_ms', '<=', (MAX_CLOCK_OFFSET_SECONDS - seconds) * 1000)
    .returning('offset_ms');
  if (!row) throw invalidField('/advance_seconds', `would take the clock more than ${MAX_CLOCK_OFFSET_SECONDS} seconds ahead in total`);
  const offsetMs = Number(row.offset_ms);
  return { offset_seconds: Math.floor(offsetMs / 1000), now: new Date(Date.now() + offsetMs).toISOString() };
}
