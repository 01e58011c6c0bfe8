/** Wallet statements, as JSON or CSV by the Accept header. */
import { getWalletStatement, statementToCsv } from '../../domain/statements.js';
import { businessIdOf } from '../../http/operation.js';
import type { ClosedLoopMap } from './types.js';

export const statementOperations = {
  getWalletStatement: {
    access: 'business',
    async handle(ctx) {
      const statement = await getWalletStatement(
        ctx.db,
        businessIdOf(ctx),
        ctx.path.wallet_id,
        ctx.query,
        ctx.services.config.statementMaxEntries,
      );
      if (ctx.koa.accepts('application/json', 'text/csv') === 'text/csv') {
        return { status: 200, body: statementToCsv(statement), contentType: 'text/csv' };
      }
      return { status: 200, body: statement };
    },
  },
} satisfies Partial<ClosedLoopMap>;
