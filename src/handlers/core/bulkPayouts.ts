/** Bulk payouts: list the batches, create one under an idempotency key, its status, its report as JSON and CSV. */
import type { operations } from '../../../generated/types/core.js';
import { BULK_PAYOUT_CSV_COLUMNS, batchReportToCsv, getBatchReport, getBulkPayout, listBulkPayouts } from '../../payouts/index.js';
import { createBulkPayout, requireNoApproval } from '../../payouts/index.js';
import { CSV_TYPE, businessIdOf, csvExport, type OperationMap } from '../../http/operation.js';

type BulkPayoutOperations = Pick<operations, 'listBulkPayouts' | 'exportBulkPayoutsCsv' | 'createBulkPayout' | 'getBulkPayoutStatus' | 'getBatchReport' | 'getBatchReportCsv'>;

export const bulkPayoutOperations = {
  listBulkPayouts: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listBulkPayouts(ctx.db, businessIdOf(ctx), ctx.query) }),
  },
  exportBulkPayoutsCsv: {
    access: 'business',
    handle: async (ctx) => csvExport(BULK_PAYOUT_CSV_COLUMNS, (page) => listBulkPayouts(ctx.db, businessIdOf(ctx), { ...ctx.query, ...page })),
  },
  createBulkPayout: {
    access: 'business',
    async handle(ctx) {
      await requireNoApproval(ctx.db, businessIdOf(ctx), ctx.body.items.map((item) => item.payout_amount), true);
      const { replayed, bulk } = await createBulkPayout(ctx.db, ctx.services.jobs, businessIdOf(ctx), ctx.koa.get('idempotency-key'), ctx.body);
      if (replayed) ctx.koa.set('Idempotent-Replayed', 'true');
      return { status: 200, body: bulk };
    },
  },
  getBulkPayoutStatus: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getBulkPayout(ctx.db, businessIdOf(ctx), ctx.path.bulk_payout_id) }),
  },
  getBatchReport: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getBatchReport(ctx.db, businessIdOf(ctx), ctx.path.bulk_payout_id) }),
  },
  getBatchReportCsv: {
    access: 'business',
    handle: async (ctx) => ({
      status: 200,
      body: batchReportToCsv(await getBatchReport(ctx.db, businessIdOf(ctx), ctx.path.bulk_payout_id)),
      contentType: CSV_TYPE,
    }),
  },
} satisfies OperationMap<BulkPayoutOperations>;
