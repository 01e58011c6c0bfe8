/** Transactions: list (or export as CSV), get, and list one wallet's. */
import { TRANSACTION_CSV_COLUMNS, getTransaction, listTransactions } from '../../ledger/transactions.js';
import { getWallet } from '../../businesses/index.js';
import { businessIdOf, csvExport } from '../../http/operation.js';
import type { ClosedLoopMap } from './types.js';

export const transactionOperations = {
  listTransactions: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listTransactions(ctx.db, businessIdOf(ctx), ctx.query) }),
  },
  exportTransactionsCsv: {
    access: 'business',
    handle: async (ctx) => csvExport(TRANSACTION_CSV_COLUMNS, (page) => listTransactions(ctx.db, businessIdOf(ctx), { ...ctx.query, ...page })),
  },
  getTransaction: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getTransaction(ctx.db, businessIdOf(ctx), ctx.path.transaction_id) }),
  },
  listWalletTransactions: {
    access: 'business',
    async handle(ctx) {
      const wallet = await getWallet(ctx.db, businessIdOf(ctx), ctx.path.wallet_id);
      return { status: 200, body: await listTransactions(ctx.db, businessIdOf(ctx), { ...ctx.query, accountId: wallet.id }) };
    },
  },
} satisfies Partial<ClosedLoopMap>;
