/**
 * The jobs of the `webhook-delivery` queue (src/webhooks/delivery.ts runs them): what a
 * job names (DeliveryJob: an attempt number and the deliveries, all of one endpoint)
 * and how attempts due at about the same time share a job (groupedJobs). The relay
 * (./events.ts), the redeliveries (./endpoints.ts), the recovery (./recovery.ts) and the
 * recorder of attempts (./attemptRecorder.ts) enqueue them.
 */
export const DELIVERY_QUEUE = 'webhook-delivery';

/**
 * Data of a `webhook-delivery` job: attempt `attempt` of the deliveries it names, all to
 * one endpoint (the relay, retries and put-back attempts group them by endpoint, so that
 * a job's attempts share their endpoint's pace). Up to DELIVERIES_PER_JOB in one job
 * (`delivery_ids`), so that the queue holds one row per group of deliveries rather than
 * per delivery; a redelivery names one (`delivery_id`, also the form of every earlier
 * version's jobs). `business_id` is the deliveries' business (one endpoint's, so one
 * business's): the job's reads and writes name it, so that distributed by business
 * (docs/scale-out.md) they go to that business's node. Jobs of earlier versions lack it,
 * and their deliveries are looked up by id alone.
 */
export type DeliveryJob = { attempt: number; business_id?: string } & ({ delivery_id: string } | { delivery_ids: string[] });

/** Deliveries per job at most (see DeliveryJob). */
export const DELIVERIES_PER_JOB = 16;

/**
 * Retries and put-back attempts of one endpoint whose due times lie within this many ms
 * of each other share a job, due at the latest of them: an attempt is made up to this
 * much after its own time, never before.
 */
export const GROUP_SPREAD_MS = 1_000;

/** One attempt of one delivery, as a job asks for it. */
export interface DeliveryStep {
  delivery_id: string;
  attempt: number;
}

/** The attempts `job` asks for, one per delivery named. */
export function stepsOf(job: DeliveryJob): DeliveryStep[] {
  return ('delivery_ids' in job ? job.delivery_ids : [job.delivery_id]).map((delivery_id) => ({ delivery_id, attempt: job.attempt }));
}

/**
 * The jobs for attempts `items` (each of an endpoint, an attempt number and a due time):
 * those of one endpoint and attempt whose due times lie within GROUP_SPREAD_MS share a
 * job of up to DELIVERIES_PER_JOB deliveries, due at the latest of them.
 */
export function groupedJobs(items: { deliveryId: string; businessId: string; endpointId: string; attempt: number; due: Date }[]): { data: DeliveryJob; startAfter: Date }[] {
  const sorted = [...items].sort((a, b) => a.endpointId.localeCompare(b.endpointId) || a.attempt - b.attempt || a.due.getTime() - b.due.getTime());
  const jobs: { data: DeliveryJob; startAfter: Date }[] = [];
  let group: typeof items = [];
  const close = () => {
    if (group.length === 0) return;
    const ids = group.map((g) => g.deliveryId);
    const { attempt, businessId: business_id } = group[0]!;
    jobs.push({ data: ids.length === 1 ? { delivery_id: ids[0]!, attempt, business_id } : { delivery_ids: ids, attempt, business_id }, startAfter: group[group.length - 1]!.due });
    group = [];
  };
  for (const item of sorted) {
    const first = group[0];
    if (first && (first.endpointId !== item.endpointId || first.attempt !== item.attempt || item.due.getTime() - first.due.getTime() > GROUP_SPREAD_MS || group.length >= DELIVERIES_PER_JOB)) close();
    group.push(item);
  }
  close();
  return jobs;
}
