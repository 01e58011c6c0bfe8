/**
 * PostgreSQL's own time for the bench: pg_stat_statements on the embedded cluster, read per
 * role (the service connects as `postgres`, the reference as REFERENCE_ROLE, the SQL run as
 * its own), and the
 * posting rate of the ledger called in SQL on one connection, the database's limit that
 * the HTTP rate is held against, with the floor under it: the same funds' rows written by one
 * plain statement (openapi/DESIGN.md, "Benchmark targets relative to the bare stack").
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
 * The rows BATCH funds leave in the ledger, written by one plain statement with no rule, plan
 * or answer: the Idempotency-Keys' rows, the transactions, both entries of each, and the
 * accounts' balances and last entries, all as ledger_move_batch writes them, in tables with
 * every index and constraint they have. Each call in a transaction of its own that is rolled
 * back, so nothing stays (and the balanced-transaction check, which runs at commit, is left
 * out, as the posting's commit is: see the header). With `checks: false` the transaction sets
 * `session_replication_role = replica`, which skips the foreign keys' checks (PostgreSQL runs
 * one query per row and key) and every trigger: what the writes cost without them.
 */
const FLOOR = `
  WITH f AS (
    SELECT x.n, x.w, time_ordered_uuid() AS id, 'TXB' || lpad(floor(random() * 1e12)::bigint::text, 12, '0') AS ref,
           row_number() OVER (PARTITION BY x.w ORDER BY x.n) AS k
      FROM unnest($2::uuid[]) WITH ORDINALITY AS x(w, n)
  ), op AS (
    SELECT id, balance, last_entry_number FROM accounts WHERE business_id = $1 AND kind = 'OPERATIONAL'
  ), keys AS (
    INSERT INTO idempotency_keys (id, scope, key, business_id, request_hash, state, response_body, expires_at)
    SELECT gen_random_uuid(), 'bench-floor', gen_random_uuid()::text, $1, 'bench', 'COMPLETED', jsonb_build_object('transaction_id', f.id), now() + interval '1 day' FROM f
    RETURNING 1
  ), txns AS (
    INSERT INTO transactions (id, reference, business_id, type, status, amount, currency, debit_account_id, credit_account_id, created_at)
    SELECT f.id, f.ref, $1, 'FUND', 'SUCCESS', 1.00, 'SAR', op.id, f.w, now() FROM f, op
    RETURNING 1
  ), entries AS (
    INSERT INTO ledger_entries (business_id, transaction_id, account_id, entry_number, amount, balance_after, created_at)
    SELECT $1, f.id, op.id, op.last_entry_number + f.n, -1.00, op.balance - f.n, now() FROM f, op
    UNION ALL
    SELECT $1, f.id, f.w, a.last_entry_number + f.k, 1.00, a.balance + f.k, now() FROM f JOIN accounts a ON a.business_id = $1 AND a.id = f.w
    RETURNING 1
  ), moved AS (
    UPDATE accounts a SET balance = a.balance + m.delta, last_entry_number = a.last_entry_number + m.count, last_entry_at = now(), updated_at = now()
      FROM (SELECT w AS id, count(*) AS count, count(*)::numeric AS delta FROM f GROUP BY w
            UNION ALL SELECT op.id, count(*), -count(*)::numeric FROM f, op GROUP BY op.id) m
     WHERE a.business_id = $1 AND a.id = m.id
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM keys)::int AS keys, (SELECT count(*) FROM txns)::int AS transactions,
         (SELECT count(*) FROM entries)::int AS entries, (SELECT count(*) FROM moved)::int AS accounts`;

/**
 * The ledger's writes alone for funds (FLOOR), on one connection for `seconds`, BATCH funds
 * of 1.00 to random wallets a call, measured as the ledger's funds in SQL are: with the
 * constraints' checks (`checks`) or without them. Returns PostgreSQL's execution time per
 * fund (ms): what any posting that leaves these rows costs at least, on this machine in this
 * run. Throws if a call wrote other than a key, a transaction and two entries a fund.
 */
export async function sqlWriteFloor(databaseUrl: string, businessId: string, wallets: string[], seconds: number, checks: boolean): Promise<{ msPerFund: number }> {
  const { msEach } = await inSql(databaseUrl, seconds, async (client) => {
    const batch = Array.from({ length: BATCH }, () => wallets[Math.floor(Math.random() * wallets.length)]);
    await client.query('BEGIN');
    try {
      if (!checks) await client.query('SET LOCAL session_replication_role = replica');
      const { rows } = await client.query({ name: 'write_floor', text: FLOOR, values: [businessId, batch] });
      const r = rows[0];
      if (r.keys !== BATCH || r.transactions !== BATCH || r.entries !== 2 * BATCH) throw new Error(`the ledger's writes alone wrote ${JSON.stringify(r)} for ${BATCH} funds`);
    } finally {
      await client.query('ROLLBACK');
    }
    return BATCH;
  });
  return { msPerFund: msEach };
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
