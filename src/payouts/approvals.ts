/**
 * Payout approvals (core.yaml, tag Payout Approvals): a second pair of eyes on payouts, as
 * Increase's transfer approvals. A business sets its rules (`payout_approval_threshold`: a
 * payout, or a bulk payout's item, of at least this amount; `bulk_payout_approval`: every bulk
 * payout), read through the businesses' face. While a rule holds, the direct calls are refused
 * (`requireNoApproval`: 403 FORBIDDEN naming `POST /payout-approvals`; a code of its own would
 * be a new value of a closed response enum, i.e. a new API version: openapi/DESIGN.md, "Payout
 * approvals") and the same body is sent for approval instead: a `payout_approvals` row,
 * PENDING, with its maker (the API key or portal user calling).
 *
 * Approving (never by the maker: 403 MAKER_CANNOT_APPROVE) makes the payout by E4's own
 * creation path (`payoutCreation`) in the transaction that records the approval, under the
 * request's row lock: two approvers make one payout, the second is refused by the state
 * machine (./approvalStates.ts). A payout refused as E4 would refuse it leaves the request
 * FAILED with that code. A bulk payout is made by `createBulkPayout` (its own transaction, its
 * turn and the background lane) under the key `payout-approval:<id>` while the request's row
 * stays locked: a crash between the two leaves the request PENDING, and approving again
 * answers the same batch.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { Decimal } from 'decimal.js';
import type { components } from '../../generated/types/core.js';
import { AppError, invalidField } from '../kernel/errors.js';
import { formatMoney } from '../kernel/money.js';
import { paginate, type Page, type PageQuery } from '../kernel/pagination.js';
import type { Principal } from '../kernel/services.js';
import { moveRow } from '../kernel/stateMachine.js';
import type { JobQueue } from '../jobs/queue.js';
import { freshPosting, type Posting } from '../ledger/ledger.js';
import { businessSettings } from '../businesses/index.js';
import { createBulkPayout } from './bulk.js';
import { payoutCreation, payoutRequestOf } from './customerPayouts.js';
import { payoutApprovalMachine, type PayoutApprovalState } from './approvalStates.js';

type Schemas = components['schemas'];
type Actor = Schemas['PayoutApprovalActor'];
type ApprovalPayout = Schemas['PayoutApprovalPayout'];

/** A well-formed amount of a bulk payout's item (its items are checked one by one: others are rejected alone). */
const AMOUNT = /^\d{1,15}(\.\d{1,2})?$/;

/** The largest amount the documents' `Amount` writes (15 integer digits): a request's total above it is refused. */
const MAX_AMOUNT = '999999999999999.99';

/** The well-formed amounts of a bulk payout's items (what its total and the threshold count). */
function itemAmounts(bulk: Schemas['BulkPayoutCreateRequest']): string[] {
  return bulk.items.map((item) => item.payout_amount).filter((a): a is string => a !== undefined && AMOUNT.test(a));
}

/** Who `principal` is, as the audit log names an actor: a portal user, else the API client. */
export function actorOf(principal: Principal): Actor {
  return principal.userId ? { type: 'user', id: principal.userId } : { type: 'api_key', id: principal.clientId };
}

/**
 * Throws 403 FORBIDDEN, naming `POST /payout-approvals`, when the business's rules require an
 * approval for a payout of `amounts` (one amount, or a bulk payout's items' when `bulk`): an
 * amount at or above `payout_approval_threshold`, or any bulk payout under
 * `bulk_payout_approval`. Amounts that are not decimal strings are left to the payout's own checks.
 */
export async function requireNoApproval(db: Knex, businessId: string, amounts: readonly (string | undefined)[], bulk: boolean): Promise<void> {
  const { payout_approval_threshold: threshold, bulk_payout_approval: everyBulk } = await businessSettings(db, businessId);
  if (bulk && everyBulk) {
    throw new AppError('FORBIDDEN', 'This business requires an approval for every bulk payout: nothing moved. Send the same body as bulk_payout for approval with POST /payout-approvals.');
  }
  if (threshold === null) return;
  if (amounts.some((a) => a !== undefined && AMOUNT.test(a) && new Decimal(a).gte(threshold))) {
    throw new AppError(
      'FORBIDDEN',
      `This business requires an approval for payouts from ${formatMoney(threshold)}: nothing moved. Send the same body as ${bulk ? 'bulk_payout' : 'payout'} for approval with POST /payout-approvals.`,
    );
  }
}

/** A `payout_approvals` row (src/db/migrations/047_payout_approvals.ts). */
interface ApprovalRow {
  id: string;
  business_id: string;
  kind: Schemas['PayoutApproval']['kind'];
  status: PayoutApprovalState;
  request: { payout?: ApprovalPayout; bulk_payout?: Schemas['BulkPayoutCreateRequest'] };
  amount: string;
  currency: Schemas['Currency'];
  item_count: number;
  maker_type: Actor['type'];
  maker_id: string;
  decided_by_type: Actor['type'] | null;
  decided_by_id: string | null;
  rejection_reason: string | null;
  failure_code: string | null;
  failure_detail: string | null;
  payout_id: string | null;
  bulk_payout_id: string | null;
  created_at: Date;
  updated_at: Date;
  decided_at: Date | null;
}

/** The PayoutApproval view of a row. */
function approvalView(row: ApprovalRow): Schemas['PayoutApproval'] {
  return {
    payout_approval_id: row.id,
    status: row.status,
    kind: row.kind,
    amount: formatMoney(row.amount),
    currency: row.currency,
    item_count: row.item_count,
    payout: row.request.payout ?? null,
    created_by: { type: row.maker_type, id: row.maker_id },
    decided_by: row.decided_by_type && row.decided_by_id ? { type: row.decided_by_type, id: row.decided_by_id } : null,
    decided_at: row.decided_at ? row.decided_at.toISOString() : null,
    rejection_reason: row.rejection_reason,
    failure_code: row.failure_code,
    failure_detail: row.failure_detail,
    payout_id: row.payout_id,
    bulk_payout_id: row.bulk_payout_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const RECEIVERS = ['customer_id', 'wallet_account_number', 'mobile_number'] as const;

/**
 * createPayoutApproval: records `req` (a payout or a bulk payout) PENDING with its maker, in
 * `db` (the request's keyed transaction). Throws 400 VALIDATION_ERROR for a payout naming no
 * receiver or more than one, or of a zero amount, and for a bulk payout whose items sum past
 * MAX_AMOUNT; the payout's other rules are checked when it is approved.
 */
export async function createPayoutApproval(db: Knex, businessId: string, maker: Actor, req: Schemas['PayoutApprovalCreateRequest']): Promise<Schemas['PayoutApproval']> {
  let amount: Decimal;
  let itemCount: number;
  if (req.payout) {
    if (RECEIVERS.filter((field) => req.payout![field] !== undefined).length !== 1) {
      throw invalidField('/payout', 'must name its receiver by exactly one of customer_id, wallet_account_number and mobile_number');
    }
    amount = new Decimal(req.payout.payout_amount);
    if (amount.lte(0)) throw invalidField('/payout/payout_amount', 'must be greater than 0');
    itemCount = 1;
  } else if (req.bulk_payout) {
    amount = itemAmounts(req.bulk_payout).reduce((sum, a) => sum.plus(a), new Decimal(0));
    if (amount.gt(MAX_AMOUNT)) throw invalidField('/bulk_payout/items', `must not sum to more than ${MAX_AMOUNT}`);
    itemCount = req.bulk_payout.items.length;
  } else {
    throw invalidField('', 'must name a payout or a bulk_payout');
  }
  const { currency } = await businessSettings(db, businessId);
  const [row] = await db('payout_approvals')
    .insert({
      id: randomUUID(),
      business_id: businessId,
      kind: req.payout ? 'PAYOUT' : 'BULK_PAYOUT',
      request: JSON.stringify(req),
      amount: amount.toFixed(2),
      item_count: itemCount,
      maker_type: maker.type,
      maker_id: maker.id,
    })
    .returning('*');
  return approvalView({ ...row, currency: currency as Schemas['Currency'] });
}

/** The business's approval request `id`; 404 PAYOUT_APPROVAL_NOT_FOUND. */
export async function getPayoutApproval(db: Knex, businessId: string, id: string): Promise<Schemas['PayoutApproval']> {
  const row = await db('payout_approvals').where({ id, business_id: businessId }).first();
  if (!row) throw new AppError('PAYOUT_APPROVAL_NOT_FOUND', `No payout approval ${id} for this business.`);
  const { currency } = await businessSettings(db, businessId);
  return approvalView({ ...row, currency: currency as Schemas['Currency'] });
}

/**
 * listPayoutApprovals: a page of the business's approval requests, newest first, optionally by
 * status; one range of (business_id, [status,] created_at, id) per page (migration 047).
 * Throws 400 INVALID_CURSOR.
 */
export async function listPayoutApprovals(db: Knex, businessId: string, filter: PageQuery & { status?: PayoutApprovalState }): Promise<Page<Schemas['PayoutApproval']>> {
  const { currency } = await businessSettings(db, businessId);
  const query = db('payout_approvals as a').where('a.business_id', businessId);
  if (filter.status) query.where('a.status', filter.status);
  return paginate(query, filter, (rows: ApprovalRow[]) => rows.map((row) => approvalView({ ...row, currency: currency as Schemas['Currency'] })), 'a');
}

/**
 * The request `id` locked in `trx` (FOR NO KEY UPDATE, by its key: one shard), with the
 * business's currency; throws 404 PAYOUT_APPROVAL_NOT_FOUND, and the state machine's 409 when
 * `event` may not happen in its state.
 */
async function lockedForMove(trx: Knex.Transaction, businessId: string, id: string, event: 'APPROVE' | 'REJECT'): Promise<ApprovalRow> {
  const row: ApprovalRow | undefined = await trx('payout_approvals').where({ id, business_id: businessId }).forNoKeyUpdate().first();
  if (!row) throw new AppError('PAYOUT_APPROVAL_NOT_FOUND', `No payout approval ${id} for this business.`);
  payoutApprovalMachine.next(row.status, event);
  return row;
}

/**
 * approvePayoutApproval by `approver`, who confirms `amount` (see the module comment). Returns
 * the request APPROVED with its payout or bulk payout, or FAILED with E4's refusal. Throws 404
 * PAYOUT_APPROVAL_NOT_FOUND, 409 PAYOUT_APPROVAL_STATUS_NOT_ALLOWED, 403 MAKER_CANNOT_APPROVE,
 * 422 APPROVAL_AMOUNT_MISMATCH; each changes nothing.
 */
export async function approvePayoutApproval(
  db: Knex,
  jobs: JobQueue,
  businessId: string,
  id: string,
  approver: Actor,
  amount: string,
): Promise<Schemas['PayoutApproval']> {
  await db.transaction(async (trx) => {
    const row = await lockedForMove(trx, businessId, id, 'APPROVE');
    if (row.maker_type === approver.type && row.maker_id === approver.id) {
      throw new AppError('MAKER_CANNOT_APPROVE', 'You made this request: another person or key must approve it.');
    }
    if (!new Decimal(amount).eq(row.amount)) {
      throw new AppError('APPROVAL_AMOUNT_MISMATCH', `This request is for ${formatMoney(row.amount)}, not ${amount}: nothing was approved.`);
    }
    const decided = { decided_by_type: approver.type, decided_by_id: approver.id, decided_at: new Date() };
    if (row.request.bulk_payout) {
      const { bulk } = await createBulkPayout(db, jobs, businessId, `payout-approval:${row.id}`, row.request.bulk_payout);
      await moveRow(trx, 'payout_approvals', payoutApprovalMachine, row, 'APPROVE', { ...decided, bulk_payout_id: bulk.bulk_payout_id });
      return;
    }
    const outcome = await payoutCreation(trx, jobs, businessId, payoutRequestOf(row.request.payout!), null);
    if ('refusal' in outcome) {
      const { code, detail } = outcome.refusal;
      await moveRow(trx, 'payout_approvals', payoutApprovalMachine, row, 'FAIL', { ...decided, failure_code: code, failure_detail: detail.slice(0, 500) });
      return;
    }
    const { payout } = freshPosting(outcome) as Posting & { payout: { id: string } };
    await moveRow(trx, 'payout_approvals', payoutApprovalMachine, row, 'APPROVE', { ...decided, payout_id: payout.id });
  });
  return getPayoutApproval(db, businessId, id);
}

/**
 * rejectPayoutApproval by `decider` (an approver, or its maker withdrawing it) with `reason`:
 * the request is REJECTED and nothing moves. Throws 404 PAYOUT_APPROVAL_NOT_FOUND, 409
 * PAYOUT_APPROVAL_STATUS_NOT_ALLOWED.
 */
export async function rejectPayoutApproval(db: Knex, businessId: string, id: string, decider: Actor, reason: string): Promise<Schemas['PayoutApproval']> {
  await db.transaction(async (trx) => {
    const row = await lockedForMove(trx, businessId, id, 'REJECT');
    await moveRow(trx, 'payout_approvals', payoutApprovalMachine, row, 'REJECT', {
      decided_by_type: decider.type,
      decided_by_id: decider.id,
      decided_at: new Date(),
      rejection_reason: reason,
    });
  });
  return getPayoutApproval(db, businessId, id);
}
