/**
 * A bulk payout as it is now (core.yaml `listBulkPayouts`, `getBulkPayoutStatus`,
 * `getBatchReport`, `getBatchReportCsv`): counts per state, kept on the batch's row
 * (`bulk_payouts`, src/db/migrations/024_baseline.ts), and one report row per item,
 * read from the batch's items (`bulk_payout_items`) and their payouts.
 */
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { AppError } from '../kernel/errors.js';
import { bulkPayoutView, type BulkPayoutRow, type BulkPayoutView } from './bulk.js';
import { paginate, type Page, type PageQuery } from '../kernel/pagination.js';
import { formatMoney } from '../kernel/money.js';
import { csvText, type CsvColumn } from '../kernel/csv.js';

type Schemas = components['schemas'];
type Row = Schemas['BatchReportRow'];

/** The business's batch `id`; 404 BULK_PAYOUT_NOT_FOUND. */
async function batch(db: Knex, businessId: string, id: string) {
  const row = await db('bulk_payouts').where({ id, business_id: businessId }).first();
  if (!row) throw new AppError('BULK_PAYOUT_NOT_FOUND', `No bulk payout ${id} for this business.`);
  return row;
}

/** The batch with its item count and counts per state (bulkPayoutView: read from its row alone). */
export async function getBulkPayout(db: Knex, businessId: string, id: string): Promise<BulkPayoutView> {
  return bulkPayoutView(await batch(db, businessId, id));
}

/**
 * listBulkPayouts: a page of the business's batches with their counts, newest first,
 * optionally created in [created_from, created_to). One range of the index on
 * (business_id, created_at, id) per page (migration 034). Throws 400 INVALID_CURSOR.
 */
export async function listBulkPayouts(
  db: Knex,
  businessId: string,
  filter: PageQuery & { created_from?: string; created_to?: string },
): Promise<Page<BulkPayoutView>> {
  const query = db('bulk_payouts as b').where('b.business_id', businessId).select('b.*');
  if (filter.created_from) query.where('b.created_at', '>=', new Date(filter.created_from));
  if (filter.created_to) query.where('b.created_at', '<', new Date(filter.created_to));
  return paginate(query, filter, (rows: (BulkPayoutRow & { id: string })[]) => rows.map(bulkPayoutView), 'b');
}

/** One row per item of batch `id`, in the request's order; 404 BULK_PAYOUT_NOT_FOUND. */
export async function getBatchReport(db: Knex, businessId: string, id: string): Promise<Schemas['BatchReport']> {
  await batch(db, businessId, id);
  const items = await db('bulk_payout_items as i')
    .leftJoin('payouts as p', (on) => on.on('p.id', 'i.payout_id').andOn('p.business_id', 'i.business_id'))
    .where({ 'i.bulk_payout_id': id, 'i.business_id': businessId })
    .orderBy('i.item_index')
    .select('i.*', 'p.status', 'p.failure_code', 'p.amount as payout_amount');
  const data: Row[] = items.map((i) => {
    const amount = i.payout_amount ?? i.amount;
    return {
    item_index: i.item_index,
    payout_id: i.payout_id,
    status: i.status ?? 'REJECTED',
    failure_code: i.rejection_code ?? i.failure_code,
    failure_detail: i.rejection_detail,
    payout_amount: amount === null ? null : formatMoney(amount),
    currency: i.currency,
    customer_id: i.customer_id,
    external_reference: i.external_reference,
    };
  });
  return { bulk_payout_id: id, data };
}

const CSV_COLUMNS: (keyof Row)[] = ['item_index', 'payout_id', 'status', 'failure_code', 'failure_detail', 'payout_amount', 'currency', 'customer_id', 'external_reference'];

/** The report as CSV (../kernel/csv.ts: header line first, null an empty field, formulas defused). */
export function batchReportToCsv(report: Schemas['BatchReport']): string {
  return csvText(CSV_COLUMNS, report.data);
}

/** The columns of the bulk payouts' CSV export (core `exportBulkPayoutsCsv`): a batch with its count per state. */
export const BULK_PAYOUT_CSV_COLUMNS: CsvColumn<BulkPayoutView>[] = [
  'created_at', 'bulk_payout_id', 'item_count',
  ...(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'REJECTED'] as const).map((state) => ({ name: state.toLowerCase(), value: (b: BulkPayoutView) => b.counts[state] })),
];
