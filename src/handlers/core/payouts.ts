/**
 * Payouts (seed E4): create a payout, read its status; the payout rail's signed
 * callback; sandbox helpers for the payout account and outcomes.
 */
import type { operations } from '../../../generated/types/core.js';
import { createCustomerPayout, decidePayout, getCustomerPayout, listCustomerPayouts, topupPayoutAccount } from '../../payouts/index.js';
import { businessIdOf, type OperationMap } from '../../http/operation.js';
import { payoutRequestOf, receivePayoutRailResult, requireNoApproval } from '../../payouts/index.js';
import { requireSandbox } from './requestEnv.js';

type PayoutOperations = Pick<
  operations,
  'listCustomerPayouts' | 'createCustomerPayout' | 'getPayoutStatus' | 'receivePayoutRailResult' | 'createSandboxPayoutAccountTopup' | 'setSandboxPayoutOutcome'
>;

export const payoutOperations = {
  listCustomerPayouts: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listCustomerPayouts(ctx.db, businessIdOf(ctx), ctx.query) }),
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
