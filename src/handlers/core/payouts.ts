/**
 * Payouts (seed E4): list them (or export them as CSV, or summarise a period's), create a
 * payout, read its status; the payout rail's signed callback; sandbox helpers for the payout
 * account and outcomes.
 */
import type { operations } from '../../../generated/types/core.js';
import { PAYOUT_CSV_COLUMNS, createCustomerPayout, decidePayout, getCustomerPayout, listCustomerPayouts, topupPayoutAccount } from '../../payouts/index.js';
import { businessIdOf, csvExport, type OperationMap } from '../../http/operation.js';
import { getPayoutSummary, payoutRequestOf, receivePayoutRailResult, requireNoApproval } from '../../payouts/index.js';
import { requireSandbox } from './requestEnv.js';

type PayoutOperations = Pick<
  operations,
  'listCustomerPayouts' | 'exportPayoutsCsv' | 'getPayoutSummary' | 'createCustomerPayout' | 'getPayoutStatus' | 'receivePayoutRailResult' | 'createSandboxPayoutAccountTopup' | 'setSandboxPayoutOutcome'
>;

export const payoutOperations = {
  listCustomerPayouts: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listCustomerPayouts(ctx.db, businessIdOf(ctx), ctx.query) }),
  },
  exportPayoutsCsv: {
    access: 'business',
    handle: async (ctx) => csvExport(PAYOUT_CSV_COLUMNS, (page) => listCustomerPayouts(ctx.db, businessIdOf(ctx), { ...ctx.query, ...page })),
  },
  getPayoutSummary: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getPayoutSummary(ctx.db, businessIdOf(ctx), ctx.query) }),
  },
  createCustomerPayout: {
    access: 'business',
    idempotent: true,
    async handle(ctx) {
      await requireNoApproval(ctx.db, businessIdOf(ctx), [ctx.body.payout_amount], false);
      // The documents' receiver fields are snake_case (v4); the payout's own request keeps the seed's names.
      return { status: 200, body: await createCustomerPayout(ctx.db, ctx.services.jobs, businessIdOf(ctx), payoutRequestOf(ctx.body), ctx.idempotency) };
    },
  },
  getPayoutStatus: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getCustomerPayout(ctx.db, businessIdOf(ctx), ctx.path.payout_id) }),
  },
  receivePayoutRailResult: {
    access: 'signature',
    handle: async (ctx) => ({ status: 200, body: await receivePayoutRailResult(ctx.db, ctx.body) }),
  },
  createSandboxPayoutAccountTopup: {
    access: 'business',
    async handle(ctx) {
      requireSandbox(ctx.services);
      return { status: 201, body: await topupPayoutAccount(ctx.db, businessIdOf(ctx), ctx.body) };
    },
  },
  setSandboxPayoutOutcome: {
    access: 'business',
    async handle(ctx) {
      requireSandbox(ctx.services);
      return { status: 200, body: await decidePayout(ctx.db, businessIdOf(ctx), ctx.path.payout_id, ctx.body) };
    },
  },
} satisfies OperationMap<PayoutOperations>;
