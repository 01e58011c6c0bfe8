/**
 * Reads the deliveries a `webhook-delivery` job names (./delivery.ts), with their event
 * and endpoint: one query for the ids of many jobs, on the background lane's read
 * connection (src/kernel/background.ts).
 */
import type { Knex } from 'knex';
import { backgroundReads } from '../kernel/background.js';

/** A delivery with its event and endpoint, as an attempt needs it. */
export interface DeliveryRow {
  id: string;
  business_id: string;
  status: string;
  attempt_count: number;
  event_id: string;
  code: string;
  data: unknown;
  event_created_at: Date;
  endpoint_id: string;
  url: string;
  secret: string | null;
  secret_sealed: string | null;
  secret_key_version: number | null;
  previous_secret_sealed: string | null;
  previous_secret_key_version: number | null;
  previous_secret_expires_at: Date | null;
  endpoint_status: string;
}

/**
 * Reads deliveries for the jobs of one instance: the ids asked for while a read runs are
 * read together in the next (one query for many jobs, on the background lane's read
 * connection, which every job would otherwise queue for one by one). One per instance.
 */
export class DeliveryReader {
  private pending: { ids: string[]; resolve(rows: Map<string, DeliveryRow>): void; reject(err: unknown): void }[] = [];
  private reading = false;

  constructor(private readonly db: Knex) {}

  /** The deliveries `ids` that exist, by id; rejects as their query does. */
  read(ids: string[]): Promise<Map<string, DeliveryRow>> {
    return new Promise((resolve, reject) => {
      this.pending.push({ ids, resolve, reject });
      if (!this.reading) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.reading = true;
    try {
      while (this.pending.length > 0) {
        const round = this.pending.splice(0);
        try {
          const rows = await deliveryRows(backgroundReads(this.db), [...new Set(round.flatMap((p) => p.ids))]);
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

/** The deliveries `ids` with their event and endpoint, by id (one query). */
async function deliveryRows(db: Knex, ids: string[]): Promise<Map<string, DeliveryRow>> {
  const rows = (await db('webhook_deliveries as d')
    .join('outbox_events as e', 'e.id', 'd.event_id')
    .join('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .whereIn('d.id', ids)
    .select(
      'd.id', 'd.business_id', 'd.status', 'd.attempt_count', 'e.id as event_id', 'e.code', 'e.data', 'e.created_at as event_created_at',
      'w.id as endpoint_id', 'w.url', 'w.secret', 'w.secret_sealed', 'w.secret_key_version', 'w.status as endpoint_status',
      'w.previous_secret_sealed', 'w.previous_secret_key_version', 'w.previous_secret_expires_at',
    )) as DeliveryRow[];
  return new Map(rows.map((r) => [r.id, r]));
}
