/**
 * Reads the deliveries a `webhook-delivery` job names (./delivery.ts), with their event
 * and endpoint: one query for the ids of many jobs, on the background lane's read
 * connection (src/kernel/scheduling/background.ts). The query names the jobs' businesses (and joins
 * on them), so that distributed by business (docs/scale-out.md) it asks their shards only.
 */
import type { Knex } from 'knex';
import { acrossBusinesses } from '../db/acrossBusinesses.js';
import { backgroundRead } from '../kernel/scheduling/background.js';

/** A delivery with its event and endpoint, as an attempt needs it. */
export interface DeliveryRow {
  id: string;
  business_id: string;
  status: string;
  /** EVENT (the event's own delivery), REDELIVERY, RECOVERY or TEST. */
  kind: string;
  attempt_count: number;
  event_id: string;
  code: string;
  data: unknown;
  /** The API version whose shape `data` is stored in (outbox_events.data_version). */
  data_version: string;
  event_created_at: Date;
  endpoint_id: string;
  url: string;
  secret_sealed: string;
  secret_key_version: number;
  previous_secret_sealed: string | null;
  previous_secret_key_version: number | null;
  previous_secret_expires_at: Date | null;
  endpoint_status: string;
  /** The endpoint's API version: the event's data is rendered at it. */
  api_version: string;
}

/**
 * Reads deliveries for the jobs of one instance: the ids asked for while a read runs are
 * read together in the next (one query for many jobs, on the background lane's read
 * connection, which every job would otherwise queue for one by one). One per instance.
 */
export class DeliveryReader {
  private pending: { ids: string[]; businessId: string | undefined; resolve(rows: Map<string, DeliveryRow>): void; reject(err: unknown): void }[] = [];
  private reading = false;

  constructor(private readonly db: Knex) {}

  /**
   * The deliveries `ids` of business `businessId` that exist, by id; rejects as their
   * query does. Without a business (a job of an earlier version) they are looked up by id alone.
   */
  read(ids: string[], businessId: string | undefined): Promise<Map<string, DeliveryRow>> {
    return new Promise((resolve, reject) => {
      this.pending.push({ ids, businessId, resolve, reject });
      if (!this.reading) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.reading = true;
    try {
      while (this.pending.length > 0) {
        const round = this.pending.splice(0);
        try {
          // One statement per business of the round (on Citus, each served by that business's node).
          const byBusiness = new Map<string | undefined, string[]>();
          for (const p of round) byBusiness.set(p.businessId, [...(byBusiness.get(p.businessId) ?? []), ...p.ids]);
          const rows = new Map<string, DeliveryRow>();
          for (const [businessId, ids] of byBusiness) {
            const read = (db: Knex) => deliveryRows(db, [...new Set(ids)], businessId);
            const found = businessId ? await backgroundRead(this.db, read) : await acrossBusinesses(this.db, read);
            for (const [id, row] of found) rows.set(id, row);
          }
          for (const p of round) p.resolve(rows);
        } catch (err) {
          for (const p of round) p.reject(err);
        }
      }
    } finally {
      this.reading = false;
    }
  }
}

/**
 * The deliveries `ids` of `businesses` (of any business when undefined) with their event
 * and endpoint, by id (one query).
 */
async function deliveryRows(db: Knex, ids: string[], businessId: string | undefined): Promise<Map<string, DeliveryRow>> {
  const query = db('webhook_deliveries as d')
    .join('outbox_events as e', (on) => on.on('e.id', 'd.event_id').andOn('e.business_id', 'd.business_id'))
    .join('webhook_endpoints as w', (on) => on.on('w.id', 'd.endpoint_id').andOn('w.business_id', 'd.business_id'))
    .whereIn('d.id', ids);
  if (businessId) query.where('d.business_id', businessId);
  const rows = (await query
    .select(
      'd.id', 'd.business_id', 'd.status', 'd.kind', 'd.attempt_count', 'e.id as event_id', 'e.code', 'e.data', 'e.data_version', 'e.created_at as event_created_at',
      'w.id as endpoint_id', 'w.url', 'w.secret_sealed', 'w.secret_key_version', 'w.status as endpoint_status', 'w.api_version',
      'w.previous_secret_sealed', 'w.previous_secret_key_version', 'w.previous_secret_expires_at',
    )) as DeliveryRow[];
  return new Map(rows.map((r) => [r.id, r]));
}
