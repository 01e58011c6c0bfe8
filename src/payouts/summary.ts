/**
 * A business's payouts created in a period, counted and summed per status (core
 * `getPayoutSummary`): what the portal's Overview shows for "today" in the business's time
 * zone, in one request however many payouts there are. One statement, naming the business as
 * a value (docs/scale-out.md), over the range of the index payouts (business_id, created_at,
 * id) that the period covers: its cost grows with the period's payouts, never with the
 * business's history; the period is at most MAX_SUMMARY_DAYS long.
 */
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { businessSettings } from '../businesses/index.js';
import { invalidField } from '../kernel/errors.js';
import { Decimal, formatMoney } from '../kernel/money.js';

type Schemas = components['schemas'];
type Status = keyof Schemas['PayoutSummary']['by_status'];

/** The longest period a summary covers, in days: a month and a day, whatever the month. */
export const MAX_SUMMARY_DAYS = 32;
const STATUSES: Status[] = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'];

/**
 * The payouts business `businessId` created in [from, to) (ISO instants), their count and the
 * sum of their amounts (decimal strings, two decimals, in the business's currency) per status
 * and in all. Throws 400 VALIDATION_ERROR when `to` is not after `from` or the period is longer
 * than MAX_SUMMARY_DAYS.
 */
export async function getPayoutSummary(db: Knex, businessId: string, query: { from: string; to: string }): Promise<Schemas['PayoutSummary']> {
  const from = new Date(query.from);
  const to = new Date(query.to);
  if (to <= from) throw invalidField('/query/to', 'must be after from');
  if (to.getTime() - from.getTime() > MAX_SUMMARY_DAYS * 86_400_000) throw invalidField('/query/to', `must be at most ${MAX_SUMMARY_DAYS} days after from`);
  const { currency } = await businessSettings(db, businessId);
  // Aggregates by FILTER over the period's rows in creation order: a GROUP BY would lead the
  // planner to the status index, another index to a range that starts at the business's first
  // payout; in creation order, the range the period covers is the cheapest way to the rows.
  const period = db('payouts')
    .where('business_id', businessId)
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .select('status', 'amount')
    .as('p');
  const columns = STATUSES.flatMap((s) => [
    db.raw(`count(*) FILTER (WHERE status = ?)::int AS ??`, [s, `${s}_count`]),
    db.raw(`coalesce(sum(amount) FILTER (WHERE status = ?), 0)::text AS ??`, [s, `${s}_amount`]),
  ]);
  const row: Record<string, string | number> = await db.from(period).first(...columns);
  const tally = (count: number, amount: Decimal.Value) => ({ count, amount: formatMoney(amount) });
  const byStatus = Object.fromEntries(STATUSES.map((s) => [s, tally(Number(row[`${s}_count`]), String(row[`${s}_amount`]))])) as Schemas['PayoutSummary']['by_status'];
  const all = Object.values(byStatus);
  const total = tally(
    all.reduce((n, t) => n + t.count, 0),
    all.reduce((sum, t) => sum.plus(t.amount), new Decimal(0)),
  );
  return { from: from.toISOString(), to: to.toISOString(), currency: currency as Schemas['PayoutSummary']['currency'], total, by_status: byStatus };
}
