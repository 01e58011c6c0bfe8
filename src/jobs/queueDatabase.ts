/**
 * The database pg-boss runs on (its `db` option, src/jobs/queue.ts): a pg pool of the job
 * queue's own, whose failures are all handled, and transactions on it for the service's
 * own statements on pg-boss's schemas (src/jobs/pgboss10.ts).
 */
import pg from 'pg';
import type { Db } from 'pg-boss';

/**
 * pg-boss's database (its `db` option): a pg pool of our own with an error listener.
 * Every failure of a statement is thrown to pg-boss, which reports a background one as
 * an `error` event (src/jobs/queue.ts reports it to the outage log) and any other to
 * its caller. pg-boss awaits each of its statements, completing and failing a job's
 * included, so none of them ends as an unhandled rejection while PostgreSQL is down.
 */
export class QueueDatabase implements Db {
  private readonly pool: pg.Pool;

  constructor(
    connectionString: string,
    private readonly onError: (err: unknown) => void,
  ) {
    this.pool = new pg.Pool({ connectionString, max: 4, application_name: 'wallet-service-jobs' });
    // A connection that breaks while idle in the pool is reported here; without a
    // listener the pool's `error` event would end the process.
    this.pool.on('error', (err) => this.onError(err));
  }

  async executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }> {
    return this.pool.query(text, values);
  }

  /**
   * Runs `work` in one transaction on a connection of the pool: committed when it
   * resolves, rolled back (and the connection discarded, as it may be broken) when it
   * throws, the error rethrown.
   */
  async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (err) {
      client.release(true); // the connection may be broken or mid-transaction: not back to the pool
      throw err;
    }
  }

  async close(): Promise<void> {
    if (!this.pool.ending) await this.pool.end();
  }
}
