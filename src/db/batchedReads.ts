/**
 * Batched reads by id: concurrent reads of one business's rows of a table by primary key
 * are sent together, one statement (`WHERE business_id = $1 AND id = ANY($2)`) and one
 * round trip for all of them. A statement names one business: distributed by business
 * (docs/scale-out.md) it is served by that business's node; reads of several businesses
 * in one turn are one statement per business.
 *
 * A round trip to PostgreSQL costs the service about as much CPU as the rest of a simple
 * read (the socket write alone, a loopback TCP send, is a large share of the node
 * process's time under `getWallet` load), and PostgreSQL pays per statement too; posting
 * movements in batches (src/ledger/batching.ts) cuts the node process's CPU per transfer
 * for the same reason.
 *
 * Same discipline as batched posting, with no timer: while fewer than READS_IN_FLIGHT
 * statements of a reader are in flight, a read goes at once (alone, or with the reads
 * of the same turn of the event loop); otherwise it waits, and the next statement takes
 * every read waiting (up to MAX_BATCH_READS) as soon as one returns. A read is never
 * answered from a cache: each sees the database as of its statement, which is sent
 * after the read was asked for (a client that was answered a write reads it back).
 * Inside a caller's transaction the read is that transaction's own statement.
 *
 * Built on DataLoader (graphql/dataloader) with its cache off and a scheduler that
 * counts statements in flight.
 */
import DataLoader from 'dataloader';
import type { Knex } from 'knex';
import { preparedQuery, preparedStatement } from './knex.js';

/** Statements of one reader in flight at once (per pool: one instance). */
export const READS_IN_FLIGHT = 4;

/** Most ids in one statement. */
export const MAX_BATCH_READS = 256;

/** The Knex event of one statement of batched reads sent; its argument is `{ reader, reads }` (the reader's name, ids read). */
export const READ_BATCH_EVENT = 'read-batch';

/** A read of rows by id on one table: `load(db, businessId, id)` resolves with the business's row or undefined. */
export interface RowReader<Row> {
  load(db: Knex, businessId: string, id: string): Promise<Row | undefined>;
}

/**
 * A reader of `table`'s rows by `id` (a uuid column) under `business_id` (its primary key
 * `(id, business_id)`), through the named prepared statement `name`. `id`s must be uuids
 * (the documents' `format: uuid` checks them before a handler runs): one that is not
 * fails its whole batch's statement.
 */
export function rowReader<Row extends { id: string }>(name: string, table: string): RowReader<Row> {
  const single = preparedStatement(`${name}_one`, `SELECT * FROM ${table} WHERE id = ? AND business_id = ?`);
  const many = preparedStatement(name, `SELECT * FROM ${table} WHERE id = ANY(?::uuid[]) AND business_id = ?`);
  const loaders = new WeakMap<Knex, DataLoader<string, Row | undefined>>();

  const loaderOf = (db: Knex): DataLoader<string, Row | undefined> => {
    let loader = loaders.get(db);
    if (loader) return loader;
    let inFlight = 0;
    const waiting: (() => void)[] = [];
    loader = new DataLoader<string, Row | undefined>(
      async (keys) => {
        db.emit(READ_BATCH_EVENT, { reader: name, reads: keys.length });
        try {
          // Keys are `business|id`: one statement per business of the batch.
          const byBusiness = new Map<string, string[]>();
          for (const key of keys) {
            const [business, id] = key.split('|') as [string, string];
            const ids = byBusiness.get(business);
            if (ids) ids.push(id);
            else byBusiness.set(business, [id]);
          }
          const found = new Map<string, Row>();
          for (const [business, ids] of byBusiness) {
            const rows = ids.length === 1 ? await preparedQuery<Row>(db, single, [ids[0], business]) : await preparedQuery<Row>(db, many, [ids, business]);
            for (const r of rows) found.set(`${business}|${r.id}`, r);
          }
          return keys.map((key) => found.get(key.toLowerCase()));
        } finally {
          inFlight--;
          const next = waiting.shift();
          if (next) {
            inFlight++;
            next();
          }
        }
      },
      {
        cache: false,
        maxBatchSize: MAX_BATCH_READS,
        batchScheduleFn: (dispatch) => {
          if (inFlight < READS_IN_FLIGHT) {
            inFlight++;
            process.nextTick(dispatch);
          } else waiting.push(dispatch);
        },
      },
    );
    loaders.set(db, loader);
    return loader;
  };

  return {
    async load(db, businessId, id) {
      if (db.isTransaction) return (await preparedQuery<Row>(db, single, [id, businessId]))[0];
      return loaderOf(db).load(`${businessId}|${id}`);
    },
  };
}
