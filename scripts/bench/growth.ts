/**
 * The growth scenario of `npm run bench`: the same requests on two businesses of the same
 * shape, in turns interleaved with each other: the bench business, whose ledger has grown
 * by GROWTH_TRANSFERS transfers (two entries each; 1,000,000 by default, so at least 2
 * million entries), one wallet (the busy one) in a quarter of them, and a control business
 * with a fresh ledger (its wallets funded, nothing more). Reads that cost the same whatever
 * the history (index ranges, running balances on the entries, openapi/DESIGN.md
 * "Statements that do not grow with the ledger") keep their req/s and p99; a read that sums
 * or counts over history would not.
 *
 * Once the history is written, each business posts WINDOW transfers between its busy
 * wallet and another through `ledger_post` (the busy wallet's statement period: WINDOW
 * entries, the newest of its ledger); then each request kind is measured on both, one kind
 * after the other: the statement's first page (its opening balance is the balance at
 * `from`), a later page by cursor, the period as streamed CSV, the first and the 20th page
 * of the business's and of the busy wallet's transactions, getWallet, and last transfers
 * between random wallets (the only writes). The two run in alternating turns (comparePair),
 * so that the machine's changing speed weighs on both alike: on a shared 2-core machine the
 * service's node process spent up to 60 % more or 20 % less CPU on the same request (a CSV
 * of the same 1,000 entries) from one minute to the next, which two phases minutes apart
 * took for the ledger's doing.
 *
 * The history is written with SQL in chunks, not through the API (a million requests
 * would take the bench's whole time): balanced transfers in pairs (a → b then b → a, 1.00
 * each), each entry with the running balance it would have had, stamped after every
 * entry already posted and before any posted afterwards. It is written with
 * `session_replication_role = replica`, which skips the triggers (the balance check at
 * commit, foreign keys) for those rows only; the bench's ledger check reads them all
 * afterwards (balanced, balances and last entry times = entries).
 */
import pg from 'pg';
import { comparePair, type CpuReading, type LoadRequest, type LoadResult } from './load.js';

/** A business of the scenario: its token and id, and the service's transfer and getWallet requests on its wallets. */
export interface GrowthBusiness {
  token: string;
  businessId: string;
  transfer: () => LoadRequest;
  getWallet: () => LoadRequest;
}

export interface GrowthOptions {
  serviceUrl: string;
  databaseUrl: string;
  /** The business whose ledger grows (the bench business). */
  grown: GrowthBusiness;
  /** The business of the same shape whose ledger stays fresh. */
  fresh: GrowthBusiness;
  /** Transfers of the history (two entries each). */
  transfers: number;
  /** Transfers of each busy wallet's statement period. */
  window: number;
  load: { connections: number; seconds: number; warmupSeconds: number };
  cpu: () => CpuReading;
  /** VACUUM ANALYZE and CHECKPOINT (before the measurements). */
  waitUntilQuiet: () => Promise<void>;
  /** Called after each request kind and after the history, e.g. to note memory. */
  mark?: (phase: string) => void;
}

export interface GrowthRow {
  name: string;
  fresh: LoadResult;
  grown: LoadResult;
}

/** Grown / fresh for one request kind: req/s and p99. */
export function growthRatios(row: GrowthRow): { requestsPerSecond: number; p99: number } {
  return { requestsPerSecond: row.grown.requestsPerSecond / row.fresh.requestsPerSecond, p99: row.grown.p99 / row.fresh.p99 };
}

export interface GrowthResult {
  rows: GrowthRow[];
  /** Entries of the fresh business's ledger and of the grown one's, and the grown busy wallet's. */
  entriesFresh: number;
  entriesGrown: number;
  busyEntriesGrown: number;
  buildSeconds: number;
}

/** Pairs of history transfers written by one statement (one transaction). */
const CHUNK_PAIRS = 50_000;
/** The history's created_at span: it starts when the build does and ends before it does. */
const HISTORY_SPAN_MS = 20_000;

/**
 * Pairs [$2, $3) of the history of business $1: pair k is a transfer a → b of 1.00 and one
 * b → a, stamped $4 + (2k + side) × $5 µs. The busy wallet (the lowest id) is a in every
 * fourth pair; the others pick two distinct other wallets. Pairs net to zero, so every
 * entry's balance_after is the wallet's balance now, less 1.00 for a's first entry and
 * plus 1.00 for b's, and no account's balance changes. Transfer seq's reference is `TXN` and
 * the 12 digits of $7 + seq: a range no reference of the business is in (freeRange).
 */
const HISTORY_SQL = `
WITH w AS (
  SELECT array_agg(id ORDER BY id) AS ids, array_agg(balance ORDER BY id) AS bal, count(*)::int AS n
    FROM accounts WHERE business_id = $1 AND kind = 'WALLET'
), p AS (
  SELECT k,
         (CASE WHEN k % 4 = 0 THEN 1 ELSE 2 + (k * 7919) % (n - 1) END)::int AS ia,
         (CASE WHEN k % 4 = 0 THEN 2 + (k * 104729) % (n - 1)
               ELSE 2 + ((k * 7919) % (n - 1) + 1 + (k * 104729) % (n - 2)) % (n - 1) END)::int AS ib
    FROM generate_series($2::bigint, $3::bigint - 1) k, w
), x AS (
  SELECT 2 * p.k + v.side AS seq, time_ordered_uuid() AS id,
         CASE v.side WHEN 0 THEN w.ids[ia] ELSE w.ids[ib] END AS debit,
         CASE v.side WHEN 0 THEN w.ids[ib] ELSE w.ids[ia] END AS credit,
         CASE v.side WHEN 0 THEN w.bal[ia] - 1 ELSE w.bal[ib] END AS debit_after,
         CASE v.side WHEN 0 THEN w.bal[ib] + 1 ELSE w.bal[ia] END AS credit_after,
         $4::timestamptz + (2 * p.k + v.side) * $5::double precision * interval '1 microsecond' AS at
    FROM p CROSS JOIN w CROSS JOIN (VALUES (0), (1)) v(side)
), t AS (
  INSERT INTO transactions (id, reference, business_id, type, status, amount, currency, debit_account_id, credit_account_id, created_at)
  SELECT id, 'TXN' || lpad(($7::bigint + seq)::text, 12, '0'), $1, 'TRANSFER', 'SUCCESS', 1.00, $6, debit, credit, at
    FROM x ORDER BY seq
), e AS (
  SELECT x.id, x.seq, x.at, v.account_id, v.amount, v.balance_after, v.side
    FROM x CROSS JOIN LATERAL (VALUES (x.debit, -1.00, x.debit_after, 0), (x.credit, 1.00, x.credit_after, 1)) v(account_id, amount, balance_after, side)
), numbered AS (
  INSERT INTO ledger_entries (business_id, transaction_id, account_id, entry_number, amount, balance_after, created_at)
  SELECT $1, e.id, e.account_id, a.last_entry_number + row_number() OVER (PARTITION BY e.account_id ORDER BY e.seq, e.side),
         e.amount, e.balance_after, e.at
    FROM e JOIN accounts a ON a.business_id = $1 AND a.id = e.account_id
   ORDER BY e.seq, e.side
  RETURNING account_id, entry_number
)
UPDATE accounts a SET last_entry_number = m.number
  FROM (SELECT account_id, max(entry_number) AS number FROM numbered GROUP BY account_id) m
 WHERE a.business_id = $1 AND a.id = m.account_id`;

/**
 * The first of `size` consecutive reference numbers none of business `businessId`'s
 * references has. The service draws its references at random among 10^12 (ledger_post), so a
 * fixed range of a million would meet one of the 100,000 references the scenarios before
 * drew once in about ten runs; a range picked at random and checked meets none.
 */
async function freeRange(client: pg.Client, businessId: string, size: number): Promise<number> {
  for (;;) {
    const first = Math.floor(Math.random() * (1e12 - size));
    const ref = (n: number) => `TXN${String(n).padStart(12, '0')}`;
    const { rows } = await client.query('SELECT 1 FROM transactions WHERE business_id = $1 AND reference >= $2 AND reference < $3 LIMIT 1', [businessId, ref(first), ref(first + size)]);
    if (rows.length === 0) return first;
  }
}

async function getJson(base: string, path: string, token: string): Promise<any> {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`GET ${path} → ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** The `next_cursor` after `pages` pages of the list or statement at `path` (which has a query string). */
async function cursorAfter(base: string, path: string, token: string, pages: number): Promise<string> {
  let cursor: string | null = null;
  for (let i = 0; i < pages; i++) {
    const page: { next_cursor: string | null } = await getJson(base, cursor ? `${path}&cursor=${cursor}` : path, token);
    if (!page.next_cursor) throw new Error(`${path}: no page ${i + 2}`);
    cursor = page.next_cursor;
  }
  return cursor!;
}

/** Runs the scenario (see the module comment); measures with `opts.load` each request kind on both businesses. */
export async function runGrowthScenario(opts: GrowthOptions): Promise<GrowthResult> {
  const client = new pg.Client({ connectionString: opts.databaseUrl });
  await client.connect();
  try {
    /** The business's busy wallet (the lowest id) and its partner in the window. */
    const busyPair = async (businessId: string) => {
      const { rows } = await client.query(`SELECT id FROM accounts WHERE business_id = $1 AND kind = 'WALLET' ORDER BY id LIMIT 2`, [businessId]);
      return rows.map((w: { id: string }) => w.id) as [string, string];
    };
    const count = async (sql: string, args: unknown[] = []) => Number((await client.query(sql, args)).rows[0].n);

    const started = performance.now();
    const [busy] = await busyPair(opts.grown.businessId);
    const base = new Date();
    const pairs = Math.ceil(opts.transfers / 2);
    const stepMicros = (HISTORY_SPAN_MS * 1000) / (2 * pairs);
    const { rows: currency } = await client.query(`SELECT currency FROM accounts WHERE id = $1`, [busy]);
    const firstReference = await freeRange(client, opts.grown.businessId, 2 * pairs);
    await client.query('SET session_replication_role = replica');
    for (let k = 0; k < pairs; k += CHUNK_PAIRS) {
      await client.query(HISTORY_SQL, [opts.grown.businessId, k, Math.min(pairs, k + CHUNK_PAIRS), base.toISOString(), stepMicros, currency[0].currency, firstReference]);
    }
    await client.query('RESET session_replication_role');
    // Each account's last entry time on its row, as ledger_post keeps it.
    await client.query(
      `UPDATE accounts a SET last_entry_at = m.at
         FROM (SELECT account_id, max(created_at) AS at FROM ledger_entries WHERE business_id = $1 AND created_at >= $2 GROUP BY account_id) m
        WHERE a.business_id = $1 AND a.id = m.account_id`,
      [opts.grown.businessId, base.toISOString()],
    );
    // Everything posted from here on comes after the history in time.
    const wait = base.getTime() + HISTORY_SPAN_MS + 10 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const buildSeconds = (performance.now() - started) / 1000;
    opts.mark?.('history written by SQL');

    /** Posts the business's window and answers its request kinds, in the order measured. */
    const kindsOf = async (b: GrowthBusiness): Promise<[string, () => LoadRequest][]> => {
      const [busyWallet, partner] = await busyPair(b.businessId);
      const from = new Date();
      const { rows } = await client.query(
        `SELECT count(*) FILTER (WHERE p ? 'refusal')::int AS refused FROM (
           SELECT ledger_post($1::uuid, 'TRANSFER', 'WALLET', CASE WHEN i % 2 = 1 THEN $2 ELSE $3 END,
                              'WALLET', CASE WHEN i % 2 = 1 THEN $3 ELSE $2 END, '1.00', NULL, NULL, NULL) AS p
             FROM generate_series(1, $4::int) i) x`,
        [b.businessId, busyWallet, partner, opts.window],
      );
      if (rows[0].refused) throw new Error(`${rows[0].refused} window transfers refused`);
      const to = new Date(Date.now() + 1);
      const auth = { authorization: `Bearer ${b.token}` };
      const get = (path: string) => (): LoadRequest => ({ method: 'GET', path, headers: auth });
      const period = `from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}`;
      const statement = `/cl/v1/wallets/${busyWallet}/statement?${period}&limit=100`;
      const first = await getJson(opts.serviceUrl, statement, b.token);
      if (first.entries.length !== 100 || !first.has_more) throw new Error(`the busy wallet's statement period holds ${first.entries.length} entries on its first page`);
      const business = '/cl/v1/transactions?limit=20';
      const wallet = `/cl/v1/wallets/${busyWallet}/transactions?limit=20`;
      return [
        ['statement: first page of 100, opening balance', get(statement)],
        ['statement: 6th page of 100, by cursor', get(`/cl/v1/wallets/${busyWallet}/statement?limit=100&cursor=${await cursorAfter(opts.serviceUrl, statement, b.token, 5)}`)],
        [`statement CSV: ${opts.window} entries streamed`, get(`/cl/v1/wallets/${busyWallet}/statement.csv?${period}`)],
        ["business's transactions: page 1", get(business)],
        ["business's transactions: page 20", get(`${business}&cursor=${await cursorAfter(opts.serviceUrl, business, b.token, 19)}`)],
        ["busy wallet's transactions: page 1", get(wallet)],
        ["busy wallet's transactions: page 20", get(`${wallet}&cursor=${await cursorAfter(opts.serviceUrl, wallet, b.token, 19)}`)],
        ['getWallet', b.getWallet],
        ['transfer (random wallets)', b.transfer],
      ];
    };
    const freshKinds = await kindsOf(opts.fresh);
    const grownKinds = await kindsOf(opts.grown);
    await opts.waitUntilQuiet();
    const rows: GrowthRow[] = [];
    for (const [i, [name, build]] of freshKinds.entries()) {
      const target = (b: () => LoadRequest) => ({ url: opts.serviceUrl, build: b, cpu: opts.cpu });
      const [fresh, grown] = await comparePair(target(build), target(grownKinds[i]![1]), opts.load);
      rows.push({ name, fresh, grown });
      opts.mark?.(name);
    }
    return {
      rows,
      entriesFresh: await count('SELECT count(*) AS n FROM ledger_entries WHERE business_id = $1', [opts.fresh.businessId]),
      entriesGrown: await count('SELECT count(*) AS n FROM ledger_entries WHERE business_id = $1', [opts.grown.businessId]),
      busyEntriesGrown: await count('SELECT count(*) AS n FROM ledger_entries WHERE business_id = $1 AND account_id = $2', [opts.grown.businessId, busy]),
      buildSeconds,
    };
  } finally {
    await client.end();
  }
}
