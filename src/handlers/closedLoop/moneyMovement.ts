/** Money movement: fund, payout, transfer, withdrawal, refund, reversal (all idempotent). */
import {
  createFund,
  createWalletPayout,
  createRefund,
  createReversal,
  createTransfer,
  createWithdrawal,
} from '../../ledger/movements.js';
import { getTransaction } from '../../ledger/transactions.js';
import { businessIdOf } from '../../http/operation.js';
import type { ClosedLoopMap } from './types.js';

export const moneyMovementOperations = {
  createFund: {
    access: 'business',
    idempotent: true,
    handle: async (ctx) => ({ status: 201, body: await createFund(ctx.db, businessIdOf(ctx), ctx.body, ctx.idempotency) }),
  },
  createPayout: {
    access: 'business',
    idempotent: true,
    handle: async (ctx) => ({ status: 201, body: await createWalletPayout(ctx.db, businessIdOf(ctx), ctx.body, ctx.idempotency) }),
  },
  getPayout: {
    access: 'business',
    handle: async (ctx) => ({
      status: 200,
      body: await getTransaction(ctx.db, businessIdOf(ctx), ctx.path.payout_id, { type: 'PAYOUT', notFound: 'PAYOUT_NOT_FOUND' }),
    }),
  },
  createReversal: {
    access: 'business',
    idempotent: true,
    handle: async (ctx) => ({ status: 201, body: await createReversal(ctx.db, businessIdOf(ctx), ctx.body, ctx.idempotency) }),
  },
  createTransfer: {
    access: 'business',
    idempotent: true,
    handle: async (ctx) => ({ status: 201, body: await createTransfer(ctx.db, businessIdOf(ctx), ctx.body, ctx.idempotency) }),
  },
  createWithdrawal: {
    access: 'business',
    idempotent: true,
    handle: async (ctx) => ({ status: 201, body: await createWithdrawal(ctx.db, businessIdOf(ctx), ctx.body, ctx.idempotency) }),
  },
  createRefund: {
    access: 'business',
    idempotent: true,
    handle: async (ctx) => ({ status: 201, body: await createRefund(ctx.db, businessIdOf(ctx), ctx.body, ctx.idempotency) }),
  },
} satisfies Partial<ClosedLoopMap>;
