/** Wallet statements: JSON, one page at a time (getWalletStatement), and CSV, streamed (getWalletStatementCsv). */
import { getWalletStatement, streamWalletStatementCsv } from '../../ledger/statements.js';
import { CSV_TYPE, businessIdOf } from '../../http/operation.js';
import type { ClosedLoopMap } from './types.js';

export const statementOperations = {
  getWalletStatement: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getWalletStatement(ctx.db, businessIdOf(ctx), ctx.path.wallet_id, ctx.query) }),
  },
  getWalletStatementCsv: {
    access: 'business',
    handle: async (ctx) => ({
      status: 200,
      body: await streamWalletStatementCsv(ctx.db, businessIdOf(ctx), ctx.path.wallet_id, ctx.query),
      contentType: CSV_TYPE,
    }),
  },
} satisfies Partial<ClosedLoopMap>;
