/**
 * What the README quickstart promises, checked the same way by both quickstart
 * programs (quickstart-openapi-fetch.ts, quickstart-hey-api.ts): each step's
 * result is compared with the README's expected values, and the first mismatch
 * stops the program with a message and exit code 1. Nothing here sends a
 * request: only the generated clients talk to the service.
 */
import { randomUUID } from 'node:crypto';

/** A result that differs from what the README says. */
class QuickstartMismatch extends Error {}

/** The result shape both generated clients return: data on success, error otherwise. */
interface CallResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** Stops the quickstart unless `actual` equals `expected` (compared as JSON). */
export function check(what: string, actual: unknown, expected: unknown): void {
  const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== e) throw new QuickstartMismatch(`${what}: expected ${e}, got ${a}`);
}

/** The body of a successful call; stops the quickstart with the status and problem otherwise. */
export function ok<T>(what: string, result: CallResult<T>): T {
  if (!result.response.ok || result.data === undefined) {
    throw new QuickstartMismatch(`${what}: HTTP ${result.response.status} ${JSON.stringify(result.error)}`);
  }
  return result.data;
}

/** Step 2: a new wallet has an account number starting with 9, is ACTIVE and holds 0.00. */
export function checkNewWallet(wallet: { account_number: string; status: string; balance: string }): void {
  check('new wallet', [wallet.account_number[0], wallet.status, wallet.balance], ['9', 'ACTIVE', '0.00']);
}

/** Steps 3 to 5: a movement of the given type and amount. */
export function checkMovement(movement: { type: string; amount: string }, type: string, amount: string): void {
  check(`${type} movement`, [movement.type, movement.amount], [type, amount]);
}

/** Step 6: a partial refund; `total_refunded_amount` is the running total. */
export function checkRefund(refund: { amount: string; status: string; total_refunded_amount: string | null }, amount: string, total: string): void {
  check(`refund of ${amount}`, [refund.amount, refund.status, refund.total_refunded_amount], [amount, 'SUCCESS', total]);
}

/** Step 6: the refund past the payout's 300.00 is refused. */
export function checkRefundRefused(status: number, problem: { code: string } | undefined): void {
  check('refund past the payout', [status, problem?.code], [422, 'REFUND_EXCEEDS_ORIGINAL']);
}

interface StatementEntryView {
  type: string;
  direction: string;
  amount: string;
  balance_after: string;
}

/** Step 7: wallet 2's statement as JSON and as CSV. */
export function checkStatement(statement: { opening_balance: string; closing_balance: string; entries: StatementEntryView[] }, csv: string): void {
  check('statement balances', [statement.opening_balance, statement.closing_balance], ['0.00', '200.00']);
  check(
    'statement entries',
    statement.entries.map((e) => [e.type, e.direction, e.amount, e.balance_after]),
    [
      ['TRANSFER', 'CREDIT', '50.00', '50.00'],
      ['PAYOUT', 'CREDIT', '300.00', '350.00'],
      ['REFUND', 'DEBIT', '100.00', '250.00'],
      ['REFUND', 'DEBIT', '50.00', '200.00'],
    ],
  );
  // Columns: created_at, transaction_id, reference, type, direction, amount, balance_after.
  const rows = csv.trim().split(/\r?\n/).slice(1).map((line) => line.split(','));
  const [first, last] = [rows[0] ?? [], rows[rows.length - 1] ?? []];
  check('CSV first and last rows', [rows.length, first[3], first[6], last[3], last[6]], [6, 'OPENING_BALANCE', '0.00', 'CLOSING_BALANCE', '200.00']);
}

/**
 * Runs the quickstart `steps` against the service whose URL (scheme, host, port)
 * is the program's first argument, with a fresh suffix for unique names; prints
 * one line and sets the exit code (1 on a mismatch or any other failure).
 */
export async function runQuickstart(client: string, steps: (baseUrl: string, suffix: string) => Promise<void>): Promise<void> {
  const service = process.argv[2];
  try {
    if (!service) throw new QuickstartMismatch('usage: tsx <program> <service URL, e.g. http://localhost:3000>');
    await steps(`${service.replace(/\/$/, '')}/cl/v1`, randomUUID().slice(0, 8));
    console.log(`quickstart with ${client}: OK`);
  } catch (err) {
    console.error(`quickstart with ${client} FAILED: ${err instanceof QuickstartMismatch ? err.message : (err as Error).stack}`);
    process.exitCode = 1;
  }
}
