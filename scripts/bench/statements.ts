/**
 * PostgreSQL's own time for the bench: pg_stat_statements on the embedded cluster, read per
 * role (the service connects as `postgres`, the reference as REFERENCE_ROLE, the SQL run as
 * its own), and the
 * posting rate of the ledger called in SQL on one connection, the database's limit that
 * the HTTP rate is held against (openapi/DESIGN.md, "Benchmark targets relative to the
 * bare stack").
 *
 * Only top-level statements count (`pg_stat_statements.track = top`: a batch's function
 * call includes everything it runs), and no utility statement (`track_utility = off`: a
 * COMMIT's time is the WAL flush, the disk's, not the code's).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { TRANSFER } from './referenceSql.js';

/** The role the reference server connects as, so its statements are told from the service's. */
export const REFERENCE_ROLE = 'bench_reference';
/** The role the ledger is called as in SQL (sqlFundRate), alone on its connection. */
const SQL_ROLE = 'bench_sql';

/**
 * Loads pg_stat_statements at the cluster's next start (shared_preload_libraries, with the
 * settings above) and creates REFERENCE_ROLE. Run while the cluster is up; restart it after.
 */
export async function prepareStatementStats(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
    await client.query("ALTER SYSTEM SET pg_stat_statements.track = 'top'");
    await client.query('ALTER SYSTEM SET pg_stat_statements.track_utility = off');
    for (const role of [REFERENCE_ROLE, SQL_ROLE]) {
      const { rowCount } = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
      if (!rowCount) await client.query(`CREATE ROLE ${role} LOGIN SUPERUSER PASSWORD '${role}'`);
    }
  } finally {
    await client.end();
  }
}

/** `databaseUrl` (the service's) as `role` (REFERENCE_ROLE by default). */
export function referenceDatabaseUrl(databaseUrl: string, role = REFERENCE_ROLE): string {
  const url = new URL(databaseUrl);
  url.username = role;
  url.password = role;
  return url.toString();
}

/**
 * A reader of the statement time (ms) PostgreSQL has spent so far for `role` in the
 * database (the extension created on first use), and its `close`. The reader's own query
 * is left out.
 */
export function statementTime(databaseUrl: string): { of(role: string): () => Promise<number>; close(): Promise<void> } {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  let ready: Promise<unknown> | undefined;
  return {
    of: (role) => async () => {
      ready ??= pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await ready;
      const { rows } = await pool.query(
        `SELECT coalesce(sum(s.total_exec_time), 0)::float8 AS ms FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
          WHERE r.rolname = $1 AND s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND s.query NOT LIKE '%pg_stat_statements%'`,
        [role],
      );
      return rows[0].ms as number;
    },
    close: () => pool.end(),
  };
}

/** Funds of `batch` items per call of ledger_move_batch, as the service's hot lane sends them (src/ledger/batching.ts). */
const BATCH = 256;

/**
 * Calls `step` on one connection of its own, as SQL_ROLE, again and again for `seconds`;
 * each call returns how many movements it posted. Returns movements a second and
 * PostgreSQL's execution time per movement (ms), read from pg_stat_statements for the role.
 */
async function inSql(databaseUrl: string, seconds: number, step: (client: pg.Client) => Promise<number>): Promise<{ perSecond: number; msEach: number }> {
  const time = statementTime(databaseUrl);
  const spent = time.of(SQL_ROLE);
  const before = await spent();
  const client = new pg.Client({ connectionString: referenceDatabaseUrl(databaseUrl, SQL_ROLE) });
  await client.connect();
  try {
    let done = 0;
    const started = performance.now();
    while (performance.now() - started < seconds * 1000) done += await step(client);
    const perSecond = done / ((performance.now() - started) / 1000);
    return { perSecond, msEach: ((await spent()) - before) / done };
  } finally {
    await client.end();
    await time.close();
  }
}

/**
 * The ledger's funds in SQL: `ledger_move_batch` called on one connection for `seconds`,
 * each call BATCH funds of 1.00 to random wallets of the business under fresh
 * Idempotency-Keys (the service's key arguments, scoped to the business as the service
 * scopes them), each call its own transaction. Returns funds a second, and PostgreSQL's
 * execution time per fund (ms): with no other session on the hot row, no lock wait is in
 * it, only the posting's own work.
 */
export async function sqlFunds(databaseUrl: string, businessId: string, wallets: string[], seconds: number): Promise<{ perSecond: number; msPerFund: number }> {
  const { perSecond, msEach } = await inSql(databaseUrl, seconds, async (client) => {
    const items = Array.from({ length: BATCH }, () => ({
      type: 'FUND',
      request: { wallet_id: wallets[Math.floor(Math.random() * wallets.length)], amount: '1.00' },
      key: [businessId, randomUUID(), 'bench', 86_400, 60, '{}'],
    }));
    const { rows } = await client.query('SELECT ledger_move_batch($1::uuid, $2::jsonb) AS results', [businessId, JSON.stringify(items)]);
    const refused = (rows[0].results as { posting?: unknown }[]).filter((r) => !r.posting);
    if (refused.length) throw new Error(`ledger_move_batch refused ${refused.length} of ${BATCH} funds: ${JSON.stringify(refused[0])}`);
    return BATCH;
  });
  return { perSecond, msPerFund: msEach };
}

/**
 * The bare reference's transfers in SQL: its one statement (referenceSql.ts) called on one
 * connection for `seconds`, each between two random wallets of `wallets`, 0.01 each, each
 * its own transaction, measured as the ledger's funds in SQL are. Returns transfers a second
 * and PostgreSQL's execution time per transfer (ms): the database's cost of the simplest
 * correct movement on this machine, in this run.
 */
export async function sqlReferenceTransfers(databaseUrl: string, wallets: string[], seconds: number): Promise<{ perSecond: number; msPerTransfer: number }> {
  const pick = () => wallets[Math.floor(Math.random() * wallets.length)];
  const { perSecond, msEach } = await inSql(databaseUrl, seconds, async (client) => {
    const from = pick();
    let to = pick();
    while (to === from) to = pick();
    const { rows } = await client.query({ name: 'reference_transfer', text: TRANSFER, values: [from, to, '0.01', 'TRANSFER'] });
    if (!rows[0]?.ok) throw new Error(`the reference's transfer in SQL was refused: ${JSON.stringify(rows[0])}`);
    return 1;
  });
  return { perSecond, msPerTransfer: msEach };
}
