/** Labels: list and create. */
import { createLabel, listLabels } from '../../businesses/index.js';
import { businessIdOf } from '../../http/operation.js';
import type { ClosedLoopMap } from './types.js';

export const labelOperations = {
  listLabels: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listLabels(ctx.db, businessIdOf(ctx), ctx.query) }),
  },
  createLabel: {
    access: 'business',
    idempotent: 'transaction',
    handle: async (ctx) => ({ status: 201, body: await createLabel(ctx.db, businessIdOf(ctx), ctx.body) }),
  },
} satisfies Partial<ClosedLoopMap>;
