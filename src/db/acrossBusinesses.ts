/**
 * The service's few statements that read across businesses (docs/scale-out.md, "What must
 * read across businesses", names each with its cost): run here, in a transaction of their
 * own that allows a statement to be split over every shard of a distributed database.
 *
 * Every other statement names one business and, distributed by business on Citus, is
 * served by one node. The Citus suite makes any statement that is split over several
 * shards fail (`citus.multi_task_query_log_level = 'error'` on the service's connections,
 * test/citus/), except inside `acrossBusinesses`, which turns that setting off for its
 * transaction. On PostgreSQL without Citus the setting is an inert placeholder.
 */
import type { Knex } from 'knex';

/** Runs `work` in a transaction whose statements may each read every business's shard. Returns what it returns. */
export async function acrossBusinesses<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(async (trx) => {
    await trx.raw("SET LOCAL citus.multi_task_query_log_level = 'off'");
    return work(trx);
  });
}
