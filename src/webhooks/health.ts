/**
 * Failing endpoints are disabled automatically: an endpoint whose every attempt failed
 * for WEBHOOK_DISABLE_FAILING_AFTER_HOURS (default 120: 5 days) is DISABLED with
 * `disabled_reason` FAILING and `disabled_at`; its pending deliveries are then cancelled
 * by the delivery worker, its later events are still recorded, and an update to ENABLED
 * turns it back on (./endpoints.ts). 5 days outlast the retry schedule of one delivery
 * (about three days, ./schedule.ts), so an endpoint down over a weekend is not disabled.
 *
 * `webhook_endpoints.failing_since` holds the business time (src/kernel/clock.ts: real
 * time plus the sandbox offset, so a tester moves the clock instead of waiting) of the
 * first failed attempt since the last successful one. Only a change writes the row: a
 * healthy endpoint (failing_since NULL, attempts succeeding) is not written at all, so
 * the delivery path of healthy endpoints gains no write.
 */
import type { Knex } from 'knex';
import { businessNow } from '../kernel/clock.js';

/** One recorded attempt's endpoint and whether it succeeded (2xx). */
export interface AttemptHealth {
  businessId: string;
  endpointId: string;
  succeeded: boolean;
}

/**
 * Notes the attempts `attempts`, recorded in `trx`: an endpoint with a successful one is
 * healthy again (failing_since cleared); one with only failed ones is failing since its
 * first failure, and DISABLED (reason FAILING) once that is `disableAfterMs` or longer
 * ago in its business's time.
 */
export async function noteEndpointHealth(trx: Knex.Transaction, attempts: AttemptHealth[], disableAfterMs: number): Promise<void> {
  for (const businessId of new Set(attempts.map((a) => a.businessId))) {
    const mine = attempts.filter((a) => a.businessId === businessId);
    // The business's time as a value (a parameter, typed by its column: no cast), and the
    // business named in every table's condition: on Citus the statement is then one
    // shard's, and a row's CASE calls no function that is not immutable (docs/scale-out.md).
    const now = await businessNow(trx, businessId);
    const disableBefore = new Date(now.getTime() - disableAfterMs);
    await trx.raw(
      `UPDATE webhook_endpoints w
          SET failing_since = s.failing_since,
              status = CASE WHEN s.disable THEN 'DISABLED' ELSE w.status END,
              disabled_reason = CASE WHEN s.disable THEN 'FAILING' ELSE w.disabled_reason END,
              disabled_at = CASE WHEN s.disable THEN ? ELSE w.disabled_at END,
              updated_at = CURRENT_TIMESTAMP(3)
         FROM (
           SELECT e.id,
                  CASE WHEN p.any_ok THEN NULL ELSE COALESCE(e.failing_since, ?) END AS failing_since,
                  (NOT p.any_ok AND e.status = 'ENABLED' AND e.failing_since IS NOT NULL AND e.failing_since <= ?) AS disable
             FROM (SELECT endpoint_id, bool_or(succeeded) AS any_ok
                     FROM jsonb_to_recordset(?::jsonb) AS n(endpoint_id uuid, succeeded boolean)
                    GROUP BY endpoint_id) p
             JOIN webhook_endpoints e ON e.business_id = ? AND e.id = p.endpoint_id
         ) s
        WHERE w.business_id = ? AND w.id = s.id AND (w.failing_since IS DISTINCT FROM s.failing_since OR s.disable)`,
      [now, now, disableBefore, JSON.stringify(mine.map((a) => ({ endpoint_id: a.endpointId, succeeded: a.succeeded }))), businessId, businessId],
    );
  }
}
