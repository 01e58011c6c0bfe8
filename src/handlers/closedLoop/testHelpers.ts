/** Sandbox test helpers: top up the operational account (404 NOT_FOUND when SANDBOX=false). */
import { createTopup } from '../../ledger/movements.js';
import { AppError } from '../../kernel/errors.js';
import { businessIdOf } from '../../http/operation.js';
import type { ClosedLoopMap } from './types.js';

export const testHelperOperations = {
  createSandboxTopup: {
    access: 'business',
    idempotent: true,
    async handle(ctx) {
      if (!ctx.services.config.sandbox) throw new AppError('NOT_FOUND', 'Test helpers are disabled outside the sandbox.');
      return { status: 201, body: await createTopup(ctx.db, businessIdOf(ctx), ctx.body, ctx.idempotency) };
    },
  },
} satisfies Partial<ClosedLoopMap>;
