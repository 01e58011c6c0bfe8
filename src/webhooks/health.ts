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
  if (attempts.length === 0) return;
  await trx.raw(
    `UPDATE webhook_endpoints w
        SET failing_since = s.failing_since,
            status = CASE WHEN s.disable THEN 'DISABLED' ELSE w.status END,
            disabled_reason = CASE WHEN s.disable THEN 'FAILING' ELSE w.disabled_reason END,
            disabled_at = CASE WHEN s.disable THEN CURRENT_TIMESTAMP(3) ELSE w.disabled_at END,
            updated_at = CURRENT_TIMESTAMP(3)
       FROM (
         SELECT e.id, e.business_id,
                CASE WHEN p.any_ok THEN NULL ELSE COALESCE(e.failing_since, t.now) END AS failing_since,
                (NOT p.any_ok AND e.status = 'ENABLED' AND e.failing_since IS NOT NULL
                  AND e.failing_since <= t.now - ?::bigint * interval '1 millisecond') AS disable
           FROM (SELECT business_id, endpoint_id, bool_or(succeeded) AS any_ok
                   FROM jsonb_to_recordset(?::jsonb) AS n(business_id uuid, endpoint_id uuid, succeeded boolean)
                  GROUP BY business_id, endpoint_id) p
           JOIN webhook_endpoints e ON e.id = p.endpoint_id AND e.business_id = p.business_id
           CROSS JOIN LATERAL (
             SELECT CURRENT_TIMESTAMP(3) + COALESCE((SELECT c.offset_ms FROM sandbox_clocks c WHERE c.business_id = e.business_id), 0) * interval '1 millisecond' AS now
           ) t
       ) s
      WHERE w.id = s.id AND w.business_id = s.business_id AND (w.failing_since IS DISTINCT FROM s.failing_since OR s.disable)`,
    [disableAfterMs, JSON.stringify(attempts.map((a) => ({ business_id: a.businessId, endpoint_id: a.endpointId, succeeded: a.succeeded })))],
  );
}
