/**
 * Benchmark data, made through the service's public API (sandbox clients), and
 * the ledger check run on the database once the load is over.
 */
import pg from 'pg';

async function call(base: string, method: string, path: string, token: string | null, body?: unknown): Promise<any> {
  const res = await fetch(`${base}/cl/v1${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Runs `fn` over `items` with at most `limit` calls in flight. */
export async function inParallel<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]);
      }
    }),
  );
  return out;
}

/** A new business with a well-stocked operational account and `count` wallets holding 1000.00 each. */
export async function createDataset(base: string, count: number): Promise<{ token: string; businessId: string; wallets: string[] }> {
  const grant = { grant_type: 'client_credentials' };
  const platform = (await call(base, 'POST', '/auth/token', null, { ...grant, client_id: 'sandbox-platform', client_secret: 'sandbox-platform-secret' })).access_token;
  const business = await call(base, 'POST', '/businesses', platform, { name: `Bench ${Date.now()}` });
  const token = (await call(base, 'POST', '/auth/token', null, { ...grant, ...business.credentials })).access_token;
  await call(base, 'POST', '/testhelpers/topups', token, { amount: '1000000000.00' });
  const wallets = await inParallel(Array.from({ length: count }, (_, i) => i), 16, async (i) => {
    const wallet = await call(base, 'POST', '/wallets', token, { name: `bench-${i}` });
    await call(base, 'POST', '/funds', token, { wallet_id: wallet.id, amount: '1000.00' });
    return wallet.id as string;
  });
  return { token, businessId: business.id, wallets };
}

/** Ledger invariants of the business after the run; `problems` is empty when all hold. */
export async function checkLedger(databaseUrl: string, businessId: string): Promise<{ transactions: number; problems: string[] }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT
         (SELECT count(*) FROM transactions WHERE business_id = $1)::int AS transactions,
         (SELECT count(*) FROM (SELECT t.id FROM transactions t JOIN ledger_entries e ON e.business_id = t.business_id AND e.transaction_id = t.id
            WHERE t.business_id = $1 GROUP BY t.id HAVING sum(e.amount) <> 0 OR count(*) <> 2) x)::int AS unbalanced,
         (SELECT count(*) FROM accounts a WHERE a.business_id = $1
            AND a.balance <> (SELECT coalesce(sum(amount), 0) FROM ledger_entries WHERE business_id = a.business_id AND account_id = a.id))::int AS drifted,
         (SELECT sum(balance) FROM accounts WHERE business_id = $1)::text AS total,
         (SELECT count(*) FROM accounts WHERE business_id = $1 AND kind = 'WALLET' AND balance < 0)::int AS negative`,
      [businessId],
    );
    const r = rows[0];
    const problems: string[] = [];
    if (r.unbalanced) problems.push(`${r.unbalanced} unbalanced transactions`);
    if (r.drifted) problems.push(`${r.drifted} balances differ from their entries`);
    // Accounts whose last entry time differs from their last entry's, the first three named.
    const { rows: stale } = await client.query(
      `SELECT id, kind, number, stamped::text, last::text, count(*) OVER ()::int AS n
         FROM (SELECT a.id, a.kind, a.last_entry_number AS number, a.last_entry_at AS stamped,
                      (SELECT max(created_at) FROM ledger_entries WHERE business_id = a.business_id AND account_id = a.id) AS last
                 FROM accounts a WHERE a.business_id = $1) x
        WHERE stamped IS DISTINCT FROM last
        LIMIT 3`,
      [businessId],
    );
    if (stale.length) {
      // The first such account's last entries, to tell a stamp not written from entries out of order.
      const { rows: entries } = await client.query(
        `SELECT e.entry_number AS n, e.created_at::text AS at, t.type, t.created_at::text AS t_at
           FROM ledger_entries e JOIN transactions t ON t.business_id = e.business_id AND t.id = e.transaction_id
          WHERE e.business_id = $1 AND e.account_id = $2 ORDER BY e.entry_number DESC LIMIT 4`,
        [businessId, stale[0].id],
      );
      problems.push(
        `${stale[0].n} last entry times differ from their entries' (${stale.map((a) => `${a.kind}: ${a.stamped} against ${a.last}`).join('; ')}; ` +
          `the first's row says entry ${stale[0].number}, its last entries: ${entries.map((e) => `${e.n} ${e.type} at ${e.at} (transaction ${e.t_at})`).join(', ')})`,
      );
    }
    if (Number(r.total) !== 0) problems.push(`balances sum to ${r.total}, not 0`);
    if (r.negative) problems.push(`${r.negative} wallets below 0.00`);
    return { transactions: r.transactions, problems };
  } finally {
    await client.end();
  }
}

/** Consecutive checks, QUIET_STEP_MS apart, that must find no other backend at work before a scenario starts. */
const QUIET_CHECKS = 10;
const QUIET_STEP_MS = 200;
/** The longest wait for a quiet database before a scenario starts anyway. */
const QUIET_LIMIT_MS = 60_000;

/**
 * Settles the database before a scenario: waits until no other backend has been at work
 * (no query running, autovacuum included) for QUIET_CHECKS checks in a row, at most
 * QUIET_LIMIT_MS (the work a scenario before left behind: the job queue's clean-up,
 * autovacuum after 30,000 deliveries), then VACUUM ANALYZE and a CHECKPOINT (the next is
 * minutes away).
 */
export async function waitUntilQuiet(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const until = Date.now() + QUIET_LIMIT_MS;
    for (let quiet = 0; quiet < QUIET_CHECKS && Date.now() < until; ) {
      const { rows } = await client.query(
        "SELECT count(*)::int AS busy FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND state = 'active' AND backend_type IN ('client backend', 'autovacuum worker')",
      );
      quiet = rows[0].busy ? 0 : quiet + 1;
      await new Promise((r) => setTimeout(r, QUIET_STEP_MS));
    }
    await client.query('VACUUM (ANALYZE)');
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}
