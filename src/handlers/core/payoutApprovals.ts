/** Payout approvals: send a payout or bulk payout for approval, list and read the requests, approve or reject one. */
import type { operations } from '../../../generated/types/core.js';
import { actorOf, approvePayoutApproval, createPayoutApproval, getPayoutApproval, listPayoutApprovals, rejectPayoutApproval } from '../../payouts/index.js';
import { businessIdOf, type OperationMap } from '../../http/operation.js';

type PayoutApprovalOperations = Pick<operations, 'createPayoutApproval' | 'listPayoutApprovals' | 'getPayoutApproval' | 'approvePayoutApproval' | 'rejectPayoutApproval'>;

export const payoutApprovalOperations = {
  createPayoutApproval: {
    access: 'business',
    idempotent: 'transaction',
    handle: async (ctx) => ({ status: 201, body: await createPayoutApproval(ctx.db, businessIdOf(ctx), actorOf(ctx.principal!), ctx.body) }),
  },
  listPayoutApprovals: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listPayoutApprovals(ctx.db, businessIdOf(ctx), ctx.query) }),
  },
  getPayoutApproval: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getPayoutApproval(ctx.db, businessIdOf(ctx), ctx.path.payout_approval_id) }),
  },
  approvePayoutApproval: {
    access: 'business',
    handle: async (ctx) => ({
      status: 200,
      body: await approvePayoutApproval(ctx.db, ctx.services.jobs, businessIdOf(ctx), ctx.path.payout_approval_id, actorOf(ctx.principal!), ctx.body.amount),
    }),
  },
  rejectPayoutApproval: {
    access: 'business',
    handle: async (ctx) => ({
      status: 200,
      body: await rejectPayoutApproval(ctx.db, businessIdOf(ctx), ctx.path.payout_approval_id, actorOf(ctx.principal!), ctx.body.reason),
    }),
  },
} satisfies OperationMap<PayoutApprovalOperations>;
