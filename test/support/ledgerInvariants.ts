/**
 * Invariants of the double-entry ledger, read from the database for a set of
 * businesses: each query returns the rows that break its rule (none when it holds).
 * Used by the concurrency tests (`assertLedgerConsistent`) and by the property runs.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';

/** One invariant and the rows that break it (at most 20 shown). */
export interface InvariantResult {
  name: string;
  offenders: unknown[];
}

const LIMIT = 20;

/**
 * Runs `sql`, in which every `:ids` is a business id, once per business: on a
 * database distributed by business (the Citus suite) each query is then one business's,
 * served by one node, as the service's own statements are.
 */
async function rows(db: Knex, sql: string, businessIds: string[]): Promise<unknown[]> {
  const found: unknown[] = [];
  for (const id of businessIds) {
    if (found.length >= LIMIT) break;
    found.push(...(await db.raw(`${sql} LIMIT ${LIMIT}`, { ids: id })).rows);
  }
  return found;
}

/**
 * Every invariant over the businesses `businessIds`:
 * - balanced transactions: exactly two entries, the debit account's −amount and the credit account's +amount;
 * - balances match entries: each account's balance is the sum of its entries and its last `balance_after`;
 * - running balances: each entry's `balance_after` is the sum of the account's entries up to it (in the order of
 *   their `entry_number`: entries of one account are numbered under its row lock);
 * - entries in time order: an account's entries' `created_at` never goes back in number order, they are numbered
 *   1, 2, … without a gap, and the account's `last_entry_at` and `last_entry_number` are its last entry's (the stamp
 *   of src/ledger/sql/ledger_post.sql);
 * - businesses sum to zero: all balances of a business (settlement account included);
 * - no forbidden overdraft: no `balance_after` below 0.00 on an operational account or a wallet without `can_overdraft`;
 * - refund caps: refunds link only to payouts, sum to at most the payout and to its `refunded_amount`;
 * - single reversal: at most one reversal per transaction, of a reversible type, for its amount, sides swapped,
 *   recorded in the original's `reversal_transaction_id`, and never of a payout with refunds;
 * - payouts to customers: the in-transit account holds exactly the PENDING and PROCESSING payouts, a
 *   COMPLETED payout's amount went to its wallet and a FAILED one's back to the payout account, once each.
 */
export async function ledgerInvariants(db: Knex, businessIds: string[]): Promise<InvariantResult[]> {
  if (!businessIds.length) return [];
  const ids = 'CAST(:ids AS uuid)'; // one business at a time (rows)
  // One query at a time: `db` may be a transaction (one connection).
  const check = (name: string, ...queries: string[]) => async (): Promise<InvariantResult> => {
    const offenders: unknown[] = [];
    for (const q of queries) offenders.push(...(await rows(db, q, businessIds)));
    return { name, offenders };
  };
  // A database still on the schema of an older release (test/platform/database/schemaUpgrade.test.ts) has no last entry times yet.
  const lastEntryTimes = (await db.raw("SELECT 1 FROM information_schema.columns WHERE table_name = 'accounts' AND column_name = 'last_entry_at'")).rows.length > 0;
  // …nor entry numbers: its entries are in the order of their ids.
  const numbered = (await db.raw("SELECT 1 FROM information_schema.columns WHERE table_name = 'ledger_entries' AND column_name = 'entry_number'")).rows.length > 0;
  const order = numbered ? 'entry_number' : 'id';
  const checks = [
    check(
      'balanced transactions',
      `SELECT t.id, t.type, t.amount, COUNT(e.account_id) AS entries, COALESCE(SUM(e.amount), 0) AS total
       FROM transactions t LEFT JOIN ledger_entries e ON e.business_id = t.business_id AND e.transaction_id = t.id
       WHERE t.business_id = ${ids} GROUP BY t.id, t.business_id
       HAVING COUNT(e.account_id) <> 2 OR COALESCE(SUM(e.amount), 0) <> 0
           OR COUNT(*) FILTER (WHERE (e.account_id = t.debit_account_id AND e.amount = -t.amount)
                                  OR (e.account_id = t.credit_account_id AND e.amount = t.amount)) <> 2`,
    ),
    check(
      'balances match entries',
      `SELECT a.id, a.kind, a.balance, COALESCE(t.total, 0) AS total, l.balance_after AS last_after
       FROM accounts a
       LEFT JOIN (SELECT account_id, SUM(amount) AS total FROM ledger_entries WHERE business_id = ${ids} GROUP BY account_id) t
              ON t.account_id = a.id
       LEFT JOIN (SELECT DISTINCT ON (account_id) account_id, balance_after FROM ledger_entries
                   WHERE business_id = ${ids} ORDER BY account_id, ${order} DESC) l
              ON l.account_id = a.id
       WHERE a.business_id = ${ids}
         AND (a.balance <> COALESCE(t.total, 0) OR a.balance <> COALESCE(l.balance_after, 0))`,
    ),
    check(
      'running balances',
      `SELECT * FROM (
         SELECT e.${order}, e.account_id, e.amount, e.balance_after,
                SUM(e.amount) OVER (PARTITION BY e.account_id ORDER BY e.${order}) AS running
         FROM ledger_entries e WHERE e.business_id = ${ids}) x
       WHERE balance_after <> running`,
    ),
    check(
      'entries in time order',
      `SELECT * FROM (
         SELECT e.${order}, e.account_id, e.created_at,
                lag(e.created_at) OVER (PARTITION BY e.account_id ORDER BY e.${order}) AS before,
                row_number() OVER (PARTITION BY e.account_id ORDER BY e.${order}) AS place
         FROM ledger_entries e WHERE e.business_id = ${ids}) x
       WHERE created_at < before${numbered ? ' OR entry_number <> place' : ''}`,
      ...(lastEntryTimes
        ? [
            `SELECT a.id, a.kind, a.last_entry_at, max(e.created_at) AS last_entry
             FROM accounts a LEFT JOIN ledger_entries e ON e.business_id = a.business_id AND e.account_id = a.id
             WHERE a.business_id = ${ids} GROUP BY a.id, a.business_id
             HAVING a.last_entry_at IS DISTINCT FROM max(e.created_at)${numbered ? ' OR a.last_entry_number <> count(e.account_id)' : ''}`,
          ]
        : []),
    ),
    check('businesses sum to zero', `SELECT business_id, SUM(balance) AS total FROM accounts WHERE business_id = ${ids} GROUP BY business_id HAVING SUM(balance) <> 0`),
    check(
      'no forbidden overdraft',
      `SELECT e.transaction_id, a.id AS account_id, a.kind, e.balance_after
       FROM ledger_entries e JOIN accounts a ON a.business_id = e.business_id AND a.id = e.account_id
       WHERE a.business_id = ${ids} AND e.balance_after < 0
         AND (a.kind IN ('OPERATIONAL', 'PAYOUT', 'IN_TRANSIT') OR (a.kind = 'WALLET' AND NOT a.can_overdraft))`,
    ),
    check(
      'refund caps',
      `SELECT p.id, p.amount, p.refunded_amount, COALESCE(SUM(r.amount), 0) AS refunds
       FROM transactions p LEFT JOIN transactions r ON r.business_id = p.business_id AND r.original_transaction_id = p.id AND r.type = 'REFUND'
       WHERE p.business_id = ${ids} AND p.type = 'PAYOUT' GROUP BY p.id, p.business_id
       HAVING COALESCE(SUM(r.amount), 0) > p.amount OR COALESCE(SUM(r.amount), 0) <> p.refunded_amount`,
      `SELECT r.id, r.original_transaction_id, o.type AS original_type FROM transactions r JOIN transactions o ON o.business_id = r.business_id AND o.id = r.original_transaction_id
       WHERE r.business_id = ${ids} AND r.type = 'REFUND' AND o.type <> 'PAYOUT'`,
      `SELECT id, type, refunded_amount FROM transactions WHERE business_id = ${ids} AND type <> 'PAYOUT' AND refunded_amount <> 0`,
    ),
    check(
      'single reversal',
      `SELECT original_transaction_id, COUNT(*) AS reversals FROM transactions
       WHERE business_id = ${ids} AND type = 'REVERSAL' GROUP BY original_transaction_id HAVING COUNT(*) > 1 OR original_transaction_id IS NULL`,
      `SELECT r.id, o.id AS original_id, o.type, o.amount, r.amount AS reversal_amount, o.reversal_transaction_id
       FROM transactions r JOIN transactions o ON o.business_id = r.business_id AND o.id = r.original_transaction_id
       WHERE r.business_id = ${ids} AND r.type = 'REVERSAL'
         AND (o.type NOT IN ('FUND', 'PAYOUT', 'TRANSFER', 'WITHDRAWAL') OR r.amount <> o.amount
              OR r.debit_account_id <> o.credit_account_id OR r.credit_account_id <> o.debit_account_id
              OR o.reversal_transaction_id IS DISTINCT FROM r.id)`,
      `SELECT o.id, o.reversal_transaction_id FROM transactions o LEFT JOIN transactions r ON r.business_id = o.business_id AND r.id = o.reversal_transaction_id
       WHERE o.business_id = ${ids} AND o.reversal_transaction_id IS NOT NULL
         AND (r.id IS NULL OR r.type <> 'REVERSAL' OR r.original_transaction_id <> o.id)`,
      `SELECT p.id, p.refunded_amount FROM transactions p
       WHERE p.business_id = ${ids} AND p.type = 'PAYOUT' AND p.reversal_transaction_id IS NOT NULL
         AND (p.refunded_amount <> 0 OR EXISTS (SELECT 1 FROM transactions r WHERE r.business_id = ${ids} AND r.original_transaction_id = p.id AND r.type = 'REFUND'))`,
    ),
    check(
      'payouts: money in exactly one place',
      `SELECT a.business_id, a.balance AS in_transit FROM accounts a
       WHERE a.business_id = ${ids} AND a.kind = 'IN_TRANSIT' AND a.balance <>
             (SELECT COALESCE(SUM(p.amount), 0) FROM payouts p WHERE p.business_id = ${ids} AND p.status IN ('PENDING', 'PROCESSING'))`,
      `SELECT p.id, p.status, p.amount, c.type AS creation, o.type AS outcome, o.amount AS outcome_amount
       FROM payouts p JOIN transactions c ON c.business_id = p.business_id AND c.id = p.creation_transaction_id
       LEFT JOIN transactions o ON o.business_id = p.business_id AND o.id = p.outcome_transaction_id
       WHERE p.business_id = ${ids}
         AND NOT (c.type = 'CUSTOMER_PAYOUT' AND c.amount = p.amount AND (
               (p.status IN ('PENDING', 'PROCESSING') AND o.id IS NULL)
            OR (p.status = 'COMPLETED' AND o.type = 'CUSTOMER_PAYOUT_COMPLETION' AND o.amount = p.amount AND o.credit_account_id = p.wallet_id)
            OR (p.status = 'FAILED' AND o.type = 'CUSTOMER_PAYOUT_RETURN' AND o.amount = p.amount AND p.failure_code IS NOT NULL)))`,
    ),
  ];
  const results: InvariantResult[] = [];
  for (const run of checks) results.push(await run());
  return results;
}

/** Asserts every ledger invariant for one business (the offending rows are shown on failure). */
export async function assertLedgerConsistent(db: Knex, businessId: string): Promise<void> {
  for (const result of await ledgerInvariants(db, [businessId])) {
    expect(result.offenders, `${result.name}: ${JSON.stringify(result.offenders)}`).to.deep.equal([]);
  }
}
