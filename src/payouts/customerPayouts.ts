/**
 * Payouts to customers (core API, seed E4): create one, read one, and the
 * sandbox helpers (top up the payout account, decide an outcome).
 *
 * Money moves only through the ledger's posting, called by the payouts' own PL/pgSQL
 * (src/payouts/sql/): creation is one statement, `payout_create` (payout account →
 * in-transit, the payout row and its `payout.pending` event), under the request's
 * Idempotency-Key `payout_create_keyed`, and the processing job is enqueued in the same
 * database transaction; later steps are `payout_move` along the table of ./states.ts.
 */
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { AppError, refusalError } from '../kernel/errors.js';
import type { KeyClaim } from '../kernel/idempotency/idempotency.js';
import type { JobQueue } from '../jobs/queue.js';
import { preparedQuery, preparedStatement } from '../db/knex.js';
import { freshPosting, move, outcomeOf, type Posting, type RawOutcome } from '../ledger/ledger.js';
import { reportPosted } from '../ledger/posted.js';
import { formatMoney } from '../kernel/money.js';
import { paginate, type Page, type PageQuery } from '../kernel/pagination.js';
import type { CsvColumn } from '../kernel/csv.js';
import { payoutMove } from './moves.js';
import { PAYOUT_QUEUE, type PayoutJob } from './processing.js';

type Schemas = components['schemas'];

const PAYOUT_CREATE = preparedStatement('payout_create', 'SELECT payout_create(?::uuid, ?::jsonb) AS outcome');
const PAYOUT_CREATE_KEYED = preparedStatement('payout_create_keyed', 'SELECT payout_create_keyed(?::uuid, ?, ?, ?, ?::int, ?::int, ?::jsonb, ?::jsonb) AS outcome');

/**
 * E4's creation path in transaction `trx`: `payout_create` (under `claim`,
 * `payout_create_keyed`) and, when it made a payout, the payout's processing job. Returns
 * the database's answer uninterpreted (a refusal wrote nothing). A bulk payout's items take
 * the same path in SQL (`payout_create_batch`, src/payouts/bulk.ts).
 */
export async function payoutCreation(
  trx: Knex.Transaction,
  jobs: JobQueue,
  businessId: string,
  req: object,
  claim: KeyClaim | null,
): Promise<RawOutcome> {
  if (claim) claim.sent = true;
  const [{ outcome: answer }] = await preparedQuery<{ outcome: RawOutcome }>(
    trx,
    claim ? PAYOUT_CREATE_KEYED : PAYOUT_CREATE,
    claim ? [businessId, ...claim.sqlArgs(), JSON.stringify(req)] : [businessId, JSON.stringify(req)],
  );
  const fresh = freshPosting(answer) as (Posting & { payout: { id: string } }) | null;
  reportPosted(trx, [fresh?.type]);
  if (fresh) await jobs.send(PAYOUT_QUEUE, { payout_id: fresh.payout.id, business_id: businessId, step: 'SUBMIT' } satisfies PayoutJob, { trx, businessId });
  return answer;
}

/**
 * A payout's request as the payout SQL reads it (payout_create, customer_by_identifier): seed E4's
 * body, its receiver named `customer_id`, `walletAccountNumber` or `mobileNumber` (the
 * documents name the last two in snake_case from v4; the handler maps them).
 */
export type PayoutRequest = Omit<Schemas['PayoutCreateRequest'], 'wallet_account_number' | 'mobile_number'> & { walletAccountNumber?: string; mobileNumber?: string };

/** A payout's request in the documents' snake_case (v4's `createCustomerPayout`, an approval's `payout`) as the payout SQL reads it. */
export function payoutRequestOf(body: Schemas['PayoutCreateRequest']): PayoutRequest {
  const { wallet_account_number: walletAccountNumber, mobile_number: mobileNumber, ...rest } = body;
  return { ...rest, ...(walletAccountNumber !== undefined && { walletAccountNumber }), ...(mobileNumber !== undefined && { mobileNumber }) };
}

/**
 * Seed E4: creates a PENDING payout (see the module comment). Throws AppError
 * VALIDATION_ERROR (amount, receiver identifiers), CUSTOMER_NOT_FOUND,
 * CUSTOMER_NOT_ACTIVE, INSUFFICIENT_FUNDS, and with the key IDEMPOTENCY_KEY_IN_USE
 * and IDEMPOTENCY_KEY_REUSED; a replay answers the first request's payout.
 */
export async function createCustomerPayout(
  db: Knex,
  jobs: JobQueue,
  businessId: string,
  req: PayoutRequest,
  claim: KeyClaim | null,
): Promise<Schemas['PayoutCreated']> {
  // The ledger's answer commits whatever it is (a refusal is stored with the key); it is interpreted after.
  const raw = await db.transaction((trx) => payoutCreation(trx, jobs, businessId, req, claim));
  const posting = outcomeOf(raw, claim) as Posting & { payout: { id: string; created_at: string } };
  return {
    transaction_id: posting.reference,
    payout_id: posting.payout.id,
    status: 'PENDING',
    created_at: new Date(posting.payout.created_at).toISOString(),
  };
}

/** The business's payouts with what their view shows (wallet account number, ledger references), under alias `p`. */
function payoutRows(db: Knex, businessId: string): Knex.QueryBuilder {
  return db('payouts as p')
    .join('accounts as w', (on) => on.on('w.business_id', 'p.business_id').andOn('w.id', 'p.wallet_id'))
    .join('transactions as c', (on) => on.on('c.business_id', 'p.business_id').andOn('c.id', 'p.creation_transaction_id'))
    .leftJoin('transactions as o', (on) => on.on('o.business_id', 'p.business_id').andOn('o.id', 'p.outcome_transaction_id'))
    .where('p.business_id', businessId)
    .select('p.*', 'w.account_number as wallet_account_number', 'c.reference as transaction_id', 'o.reference as outcome_transaction_id');
}

/** The business's payout `id` as it is now; 404 PAYOUT_NOT_FOUND. */
export async function getCustomerPayout(db: Knex, businessId: string, id: string): Promise<Schemas['Payout']> {
  const row = await payoutRows(db, businessId).where('p.id', id).first();
  if (!row) throw new AppError('PAYOUT_NOT_FOUND', `No payout ${id} for this business.`);
  return payoutView(row);
}

/**
 * listCustomerPayouts: a page of the business's payouts as they are now, newest first,
 * optionally by status, creation time [created_from, created_to) and external reference.
 * One range of an index per page: (business_id, created_at, id), or with a status or an
 * external reference (business_id, status | external_reference, created_at, id) (migration
 * 036). Throws 400 INVALID_CURSOR.
 */
export async function listCustomerPayouts(
  db: Knex,
  businessId: string,
  filter: PageQuery & { status?: string; created_from?: string; created_to?: string; external_reference?: string },
): Promise<Page<Schemas['Payout']>> {
  const query = payoutRows(db, businessId);
  if (filter.status) query.where('p.status', filter.status);
  if (filter.created_from) query.where('p.created_at', '>=', new Date(filter.created_from));
  if (filter.created_to) query.where('p.created_at', '<', new Date(filter.created_to));
  if (filter.external_reference) query.where('p.external_reference', filter.external_reference);
  return paginate(query, filter, (rows: PayoutRow[]) => rows.map(payoutView), 'p');
}

/** A row of `payoutRows`. */
type PayoutRow = {
  id: string;
  status: Schemas['Payout']['status'];
  amount: string;
  currency: Schemas['Payout']['currency'];
  purpose: string | null;
  external_reference: string | null;
  customer_id: string;
  wallet_account_number: string;
  transaction_id: string;
  outcome_transaction_id: string | null;
  failure_code: Schemas['Payout']['failure_code'];
  created_at: Date;
  updated_at: Date;
};

/** The Payout view of a row of `payoutRows`. */
function payoutView(row: PayoutRow): Schemas['Payout'] {
  return {
    payout_id: row.id,
    status: row.status,
    payout_amount: formatMoney(row.amount),
    currency: row.currency,
    payout_purpose: row.purpose,
    external_reference: row.external_reference,
    customer_id: row.customer_id,
    wallet_account_number: row.wallet_account_number,
    transaction_id: row.transaction_id,
    outcome_transaction_id: row.outcome_transaction_id,
    failure_code: row.failure_code,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** Sandbox: settlement → payout account (type TOPUP); BALANCE_LIMIT_EXCEEDED past ±999999999999999.99. */
export async function topupPayoutAccount(db: Knex, businessId: string, req: Schemas['PayoutAccountTopupRequest']): Promise<Schemas['PayoutAccountTopup']> {
  const posting = await move(db, businessId, 'PAYOUT_ACCOUNT_TOPUP', req);
  return {
    transaction_id: posting.reference,
    account_number: posting.credit_account_number,
    amount: formatMoney(posting.amount),
    currency: posting.currency as Schemas['Currency'],
    balance: formatMoney(posting.entries[1].balance_after),
    created_at: new Date(posting.created_at).toISOString(),
  };
}

/**
 * Sandbox: the bank's answer chosen by the tester. A PENDING payout is submitted
 * first; then COMPLETE or FAIL (with `failureCode`, default REJECTED_BY_BANK), all
 * in one transaction. Throws PAYOUT_NOT_FOUND, PAYOUT_STATUS_NOT_ALLOWED.
 */
export async function decidePayout(
  db: Knex,
  businessId: string,
  id: string,
  req: Schemas['SandboxPayoutOutcomeRequest'],
): Promise<Schemas['Payout']> {
  if (req.status === 'COMPLETED' && req.failure_code) {
    throw new AppError('VALIDATION_ERROR', 'failure_code is for FAILED only.', { errors: [{ pointer: '/failure_code', detail: 'is for FAILED only' }] });
  }
  await db.transaction(async (trx) => {
    const submitted = await payoutMove(trx, businessId, id, 'SUBMIT');
    if ('refusal' in submitted && submitted.refusal.code === 'PAYOUT_NOT_FOUND') throw refusalError(submitted.refusal)!;
    const decided = await payoutMove(trx, businessId, id, req.status === 'COMPLETED' ? 'COMPLETE' : 'FAIL', req.failure_code ?? 'REJECTED_BY_BANK');
    if ('refusal' in decided) throw refusalError(decided.refusal)!;
  });
  return getCustomerPayout(db, businessId, id);
}

/** The columns of the payouts' CSV export (core `exportPayoutsCsv`): every field of a Payout, its creation first. */
export const PAYOUT_CSV_COLUMNS: CsvColumn<Schemas['Payout']>[] = [
  'created_at', 'payout_id', 'status', 'payout_amount', 'currency', 'payout_purpose', 'external_reference',
  'customer_id', 'wallet_account_number', 'transaction_id', 'outcome_transaction_id', 'failure_code', 'updated_at',
];
