/**
 * Bulk payouts (core.yaml `createBulkPayout`): up to 1,000 items under one
 * idempotency key, each checked on its own. An item breaking one of E4's rules is
 * rejected alone with the code and reason E4 would have answered; every other item
 * becomes a payout by E4's own creation path in SQL (`payout_create` for each item, in
 * one `payout_create_batch` call per 500 items: the same ledger transaction and
 * `payout.pending` event), and its processing job (one statement for all of them). The
 * batch, its payouts and its rejections are one database transaction
 * (`bulk_payouts`, `bulk_payout_items`: src/db/migrations/024_baseline.ts), run in the
 * business's payout-accounts turn (src/kernel/scheduling/turns.ts) and then the instance's
 * background lane (src/kernel/scheduling/background.ts).
 *
 * Idempotency: the batch row is inserted first under a unique (business, key) index, so a
 * concurrent duplicate waits for the first to commit and then finds its batch; the same
 * request (sha-256, `requestHash`) answers that batch as first answered, another is 422
 * IDEMPOTENCY_KEY_REUSED.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { chunks } from '../kernel/chunks.js';
import { AppError, type Refusal } from '../kernel/errors.js';
import { requestHash } from '../kernel/idempotency/idempotency.js';
import type { JobQueue } from '../jobs/queue.js';
import { backgroundTransaction } from '../kernel/scheduling/background.js';
import { inBusinessTurn } from '../kernel/scheduling/turns.js';
import { PAYOUT_ACCOUNTS_TURN, PAYOUT_QUEUE, payoutJobs } from './processing.js';
import { businessSettings } from '../businesses/index.js';
import type { TransactionType } from '../ledger/ledger.js';
import { reportPosted } from '../ledger/posted.js';

type Schemas = components['schemas'];
type Item = Schemas['BulkPayoutItemInput'];
export type BulkPayoutView = Schemas['BulkPayout'];

/** The identifiers' formats (as E4's schema states them); the ledger checks the amount and that exactly one is given. */
const FORMATS: [keyof Item, RegExp, string][] = [
  ['customer_id', /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a UUID'],
  ['walletAccountNumber', /^[0-9]{12}$/, 'must be 12 digits'],
  ['mobileNumber', /^[1-9][0-9]{7,14}$/, 'must be 8 to 15 digits with the country code'],
];
const AMOUNT = /^\d{1,15}(\.\d{1,2})?$/;

/** The refusal of an identifier in the wrong format, or null. */
function formatRefusal(item: Item): Refusal | null {
  for (const [field, pattern, detail] of FORMATS) {
    const value = item[field];
    if (value !== undefined && !pattern.test(value)) return { code: 'VALIDATION_ERROR', detail, pointer: `/${field}` };
  }
  return null;
}

/** A refusal in words for the report: `<field>: <detail>` for a field's. */
const refusalText = (r: Refusal): string => (r.pointer ? `${r.pointer.slice(1)}: ${r.detail}` : r.detail);

/** Items per `payout_create_batch` call: bounds one statement's size. */
const ITEMS_PER_CALL = 500;

/** What `payout_create_batch` answers for one item: its posting (whose `type` is CUSTOMER_PAYOUT) with its payout, or its refusal. */
type ItemResult = { payout: { id: string; customer_id: string }; amount: string; type: TransactionType } | { refusal: Refusal; customer_id?: string | null };

/**
 * The items through E4's path in `trx` (`payout_create_batch`, one statement per
 * ITEMS_PER_CALL items): the rows of `bulk_payout_items` they make, in order; the id
 * of each payout made is added to `submissions`.
 */
async function createItems(trx: Knex.Transaction, businessId: string, items: Item[], submissions: string[]): Promise<({ payout_id?: string } & Record<string, unknown>)[]> {
  const early = items.map(formatRefusal);
  const valid = items.filter((_, i) => !early[i]);
  const results: ItemResult[] = [];
  for (const call of chunks(valid, ITEMS_PER_CALL)) {
    const { rows } = await trx.raw('SELECT payout_create_batch(?::uuid, ?::jsonb) AS results', [businessId, JSON.stringify(call)]);
    results.push(...(rows[0].results as ItemResult[]));
  }
  reportPosted(trx, results.map((r) => ('payout' in r ? r.type : null)));
  let next = 0;
  return items.map((item, i) => {
    const amount = item.payout_amount !== undefined && AMOUNT.test(item.payout_amount) ? item.payout_amount : null;
    const base = { amount, external_reference: item.external_reference ?? null };
    const refused = early[i];
    const result: ItemResult = refused ? { refusal: refused, customer_id: null } : results[next++];
    if ('payout' in result) {
      submissions.push(result.payout.id);
      return { ...base, payout_id: result.payout.id, customer_id: result.payout.customer_id, amount: result.amount };
    }
    return { ...base, customer_id: result.customer_id ?? null, rejection_code: result.refusal.code, rejection_detail: refusalText(result.refusal).slice(0, 500) };
  });
}

const ITEM_COLUMNS = ['id', 'business_id', 'bulk_payout_id', 'item_index', 'currency', 'payout_id', 'customer_id', 'amount', 'external_reference', 'rejection_code', 'rejection_detail'];
const ITEM_ROW = `(${ITEM_COLUMNS.map(() => '?').join(', ')})`;

/**
 * Inserts the rows of `bulk_payout_items` for batch `bulkId` in `trx`, `rows[i]` as item i,
 * in one multi-row `INSERT … VALUES`: on Citus that is one statement on the business's
 * node, where an `INSERT … SELECT` from a parameter would be copied through the
 * coordinator and commit in two phases. The VALUES list is written here, placeholders
 * only: knex's builder (`batchInsert`) spends event-loop time on every row it builds,
 * which adds up at a bulk payout's size.
 */
async function insertItems(trx: Knex.Transaction, businessId: string, bulkId: string, currency: string, rows: Record<string, unknown>[]): Promise<void> {
  const bindings = rows.flatMap((row, itemIndex) => [
    randomUUID(),
    businessId,
    bulkId,
    itemIndex,
    currency,
    row.payout_id ?? null,
    row.customer_id ?? null,
    row.amount ?? null,
    row.external_reference ?? null,
    row.rejection_code ?? null,
    row.rejection_detail ?? null,
  ]);
  await trx.raw(`INSERT INTO bulk_payout_items (${ITEM_COLUMNS.join(', ')}) VALUES ${rows.map(() => ITEM_ROW).join(', ')}`, bindings as Knex.Value[]);
}

/** A `bulk_payouts` row (migrations 015 and 023), as far as its view needs it. */
export interface BulkPayoutRow {
  id: string;
  item_count: number;
  accepted_count: number;
  processing_count: number;
  completed_count: number;
  failed_count: number;
  created_at: Date;
}

/**
 * A batch as core.yaml's BulkPayout shows it, from its row alone: the counts of PROCESSING,
 * COMPLETED and FAILED items are kept there (they move with the payouts,
 * src/payouts/sql/payout_bulk_count.sql), PENDING is what it accepted less those, REJECTED
 * what it did not accept.
 */
export function bulkPayoutView(row: BulkPayoutRow): BulkPayoutView {
  const moved = row.processing_count + row.completed_count + row.failed_count;
  return {
    bulk_payout_id: row.id,
    item_count: row.item_count,
    counts: {
      PENDING: row.accepted_count - moved,
      PROCESSING: row.processing_count,
      COMPLETED: row.completed_count,
      FAILED: row.failed_count,
      REJECTED: row.item_count - row.accepted_count,
    },
    created_at: row.created_at.toISOString(),
  };
}

/** The creation answer of a batch (the same on a replay): as created, before any of its payouts moved. */
function createdView(row: BulkPayoutRow): BulkPayoutView {
  return bulkPayoutView({ ...row, processing_count: 0, completed_count: 0, failed_count: 0 });
}

/**
 * Creates a batch of payouts under idempotency `key` (see the module comment). Returns
 * the batch as created and whether it is an earlier request's (`replayed`). Throws 422
 * IDEMPOTENCY_KEY_REUSED; every rule of E4 is an item's rejection, never an error.
 */
export async function createBulkPayout(
  db: Knex,
  jobs: JobQueue,
  businessId: string,
  key: string,
  req: Schemas['BulkPayoutCreateRequest'],
): Promise<{ replayed: boolean; bulk: BulkPayoutView }> {
  const hash = requestHash('createBulkPayout', {}, req);
  return inBusinessTurn(db, businessId, PAYOUT_ACCOUNTS_TURN, () => backgroundTransaction(db, async (trx) => {
    const id = randomUUID();
    const [inserted] = await trx('bulk_payouts')
      .insert({ id, business_id: businessId, idempotency_key: key, request_hash: hash, item_count: req.items.length, accepted_count: 0 })
      .onConflict(['business_id', 'idempotency_key'])
      .ignore()
      .returning('id');
    if (!inserted) {
      const earlier = await trx('bulk_payouts').where({ business_id: businessId, idempotency_key: key }).first();
      if (earlier.request_hash !== hash) throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This idempotency-key was used with a different bulk payout request.');
      return { replayed: true, bulk: createdView(earlier) };
    }
    const { currency } = await businessSettings(trx, businessId);
    const submissions: string[] = [];
    const rows = await createItems(trx, businessId, req.items, submissions);
    await insertItems(trx, businessId, id, currency, rows);
    await jobs.sendMany(PAYOUT_QUEUE, payoutJobs(businessId, 'SUBMIT', submissions), { trx, businessId });
    const accepted = submissions.length;
    const [row] = await trx('bulk_payouts').where({ id, business_id: businessId }).update({ accepted_count: accepted }).returning('*');
    return { replayed: false, bulk: createdView(row) };
  }));
}
