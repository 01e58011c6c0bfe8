/**
 * A transaction on the node that serves a business's rows: the service's database itself
 * on PostgreSQL; on a database distributed by business (the Citus suite), the worker that
 * holds the business's shards, where the ledger's delegated functions run and take their
 * locks (docs/scale-out.md). Tests hold there what a request in flight would hold.
 */
import type { Knex } from 'knex';
import pg from 'pg';

/** An open transaction on the business's node; `end()` rolls it back and closes it. */
export interface NodeTransaction {
  query(text: string, values?: unknown[]): Promise<unknown>;
  end(): Promise<void>;
}

/** Opens a transaction on the node of business `businessId` of `db`'s database. */
export async function businessNodeTransaction(db: Knex, businessId: string): Promise<NodeTransaction> {
  const citus = (await db.raw(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`)).rows.length > 0;
  if (!citus) {
    const trx = await db.transaction();
    return { query: (text, values = []) => trx.raw(text.replace(/\$\d+/g, '?'), values as Knex.RawBinding[]), end: async () => {
      await trx.rollback();
    } };
  }
  const { rows } = await db.raw(
    `SELECT n.nodename AS host, n.nodeport AS port FROM pg_dist_placement p JOIN pg_dist_node n ON n.groupid = p.groupid
      WHERE p.shardid = get_shard_id_for_distribution_column('accounts', ?::uuid)`,
    [businessId],
  );
  const config = (db.client as { config: { connection: string | pg.ClientConfig } }).config.connection;
  const base = typeof config === 'string' ? { connectionString: config } : config;
  const client = new pg.Client({ ...base, host: rows[0].host, port: rows[0].port });
  await client.connect();
  await client.query('BEGIN');
  return {
    query: (text, values = []) => client.query(text, values as unknown[]),
    end: async () => {
      await client.query('ROLLBACK');
      await client.end();
    },
  };
}
