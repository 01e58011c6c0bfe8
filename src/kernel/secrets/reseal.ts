/**
 * Re-sealing at start: the rows of one sealed column whose value is under an older key of
 * its family, or under the family's predecessor (src/kernel/secrets/sealing.ts), are
 * opened and sealed again under the current key, so an old key can be retired once every
 * instance has started with the new one. Each capability names its column and calls this
 * from its start (src/webhooks/secrets.ts, src/customers/identityData.ts).
 */
import type { Knex } from 'knex';
import { acrossBusinesses } from '../../db/acrossBusinesses.js';

/** A sealed column to re-seal: where it is, which rows are stale, how a row opens and seals. */
export interface ResealColumn<Row extends { id: string; business_id: string }> {
  table: string;
  /** The sealed column, compared on update so a row changed meanwhile is left alone. */
  column: keyof Row & string;
  /** The columns to read besides `id` and `business_id`. */
  reads: string[];
  /** Narrows the query to the rows sealed under an older key or by the predecessor. */
  stale: (rows: Knex.QueryBuilder) => void;
  /** The row's value in clear; throws when it does not open (its key is not configured). */
  open: (row: Row) => string;
  /** The columns that hold `clear` sealed under the current key. */
  seal: (row: Row, clear: string) => Record<string, unknown>;
}

/** Rows handled per statement. */
const BATCH = 500;

/**
 * Re-seals the stale rows of `spec`'s column under the current key, in pages of 500 in id
 * order. Safe with several instances starting at once: each row is updated only if it still
 * holds what was read. A row that does not open is left as it is and counted in
 * `unreadable`.
 */
export async function resealColumn<Row extends { id: string; business_id: string }>(db: Knex, spec: ResealColumn<Row>): Promise<{ resealed: number; unreadable: number }> {
  let resealed = 0;
  let unreadable = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    // Every business's rows: a scan across businesses, once a start (docs/scale-out.md).
    const rows = (await acrossBusinesses(db, (trx) =>
      trx(spec.table)
        .where('id', '>', after)
        .andWhere(spec.stale)
        .orderBy('id')
        .limit(BATCH)
        .select('id', 'business_id', ...spec.reads),
    )) as Row[];
    for (const row of rows) {
      let clear: string;
      try {
        clear = spec.open(row);
      } catch {
        unreadable++;
        continue;
      }
      resealed += await db(spec.table)
        .where({ id: row.id, business_id: row.business_id, [spec.column]: row[spec.column] })
        .update(spec.seal(row, clear));
    }
    if (rows.length < BATCH) return { resealed, unreadable };
    after = rows[rows.length - 1].id;
  }
}
