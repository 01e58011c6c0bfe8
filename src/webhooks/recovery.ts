/**
 * Recovery after an outage (`recoverWebhookDeliveries`): every delivery to one endpoint
 * that did not succeed and whose last change (its last attempt, or its cancellation) was
 * at or after `since` is sent again as a new delivery of the same event (kind RECOVERY,
 * attempt 1 due now, the usual schedule after it):
 *
 * - FAILED: its attempts ran out, or the endpoint answered 410;
 * - CANCELLED: the endpoint was disabled while it waited;
 * - PENDING after at least one attempt: still failing; it is CANCELLED here (its queued
 *   retry then finds it so and does nothing), the new delivery taking over.
 *
 * Each of them is marked `recovered_at` in the same statement that selects it, and only
 * unmarked ones are selected: a second recovery (even a concurrent one, which waits for
 * the first's row locks and then finds them marked) does not send them again. An event
 * with several such deliveries to the endpoint is sent once.
 */
import type { Knex } from 'knex';
import type { components } from '../../generated/types/closed-loop.js';
import { chunks } from '../kernel/chunks.js';
import type { JobQueue } from '../jobs/queue.js';
import { DELIVERIES_PER_JOB, DELIVERY_QUEUE, type DeliveryJob } from './deliveryJobs.js';
import { endpointRow, requireEnabled } from './endpoints.js';

/**
 * Queues the recovery of endpoint `endpointId`'s failed deliveries since `since` (ISO
 * instant); returns how many. Throws 404 WEBHOOK_ENDPOINT_NOT_FOUND, 409
 * WEBHOOK_ENDPOINT_DISABLED.
 */
export async function recoverDeliveries(
  db: Knex,
  jobs: JobQueue,
  businessId: string,
  endpointId: string,
  since: string,
): Promise<components['schemas']['WebhookRecovery']> {
  const from = new Date(since);
  const ids = await db.transaction(async (trx) => {
    const now = new Date();
    // Locked: a recovery and an update of the endpoint do not interleave.
    requireEnabled(await endpointRow(trx, businessId, endpointId, true));
    const { rows } = await trx.raw<{ rows: { id: string }[] }>(
      `WITH taken AS (
         UPDATE webhook_deliveries d
            SET recovered_at = ?,
                status = CASE WHEN d.status = 'PENDING' THEN 'CANCELLED' ELSE d.status END,
                next_attempt_at = NULL,
                completed_at = COALESCE(d.completed_at, ?)
          WHERE d.endpoint_id = ? AND d.business_id = ? AND d.recovered_at IS NULL AND d.updated_at >= ?
            AND (d.status IN ('FAILED', 'CANCELLED') OR (d.status = 'PENDING' AND d.attempt_count > 0))
          RETURNING d.event_id, d.business_id
       )
       INSERT INTO webhook_deliveries (id, business_id, event_id, endpoint_id, kind, status, next_attempt_at)
       SELECT gen_random_uuid(), t.business_id, t.event_id, ?, 'RECOVERY', 'PENDING', CURRENT_TIMESTAMP(3)
         FROM (SELECT DISTINCT event_id, business_id FROM taken) t
       RETURNING id`,
      // The time as a value (typed by its column): on Citus a COALESCE may call no function that is not immutable.
      [now, now, endpointId, businessId, from, endpointId],
    );
    const found = rows.map((r) => r.id);
    const jobData = chunks(found, DELIVERIES_PER_JOB).map((delivery_ids) => ({ delivery_ids, attempt: 1, business_id: businessId }) satisfies DeliveryJob);
    if (jobData.length > 0) await jobs.sendMany(DELIVERY_QUEUE, jobData, { trx, businessId });
    return found;
  });
  return { since: from.toISOString(), recovered: ids.length };
}
