/** Wallet statements: JSON (getWalletStatement) and CSV (getWalletStatementCsv). */
import { getWalletStatement, statementToCsv } from '../../ledger/statements.js';
import { businessIdOf } from '../../http/operation.js';
import type { Principal, Services } from '../../kernel/services.js';
import type { ClosedLoopMap } from './types.js';

/** The statement a request asks for (both operations take the same parameters). */
function statementFor(ctx: {
  db: Services['db'];
  principal: Principal | null;
  services: Services;
  path: { wallet_id: string };
  query: { from?: string; to?: string };
}) {
  return getWalletStatement(ctx.db, businessIdOf(ctx), ctx.path.wallet_id, ctx.query, ctx.services.config.statementMaxEntries);
}

export const statementOperations = {
  getWalletStatement: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await statementFor(ctx) }),
  },
  getWalletStatementCsv: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: statementToCsv(await statementFor(ctx)), contentType: 'text/csv; charset=utf-8' }),
  },
} satisfies Partial<ClosedLoopMap>;
