/**
 * The Transactions group of the core API: read-only views over the same
 * ledger as the closed loop, served by the closed loop's domain functions (the
 * lists and wallet reads by the closed loop's very handlers). Business tokens
 * only; another business's transaction or wallet is 404.
 */
import type { operations } from '../../../generated/types/core.js';
import { getBusinessAccountBalance } from '../../businesses/index.js';
import { getTransaction } from '../../ledger/transactions.js';
import { businessIdOf, type OperationMap } from '../../http/operation.js';
import { transactionOperations } from '../closedLoop/transactions.js';
import { walletOperations } from '../closedLoop/wallets.js';

type TransactionGroupOperations = Pick<
  operations,
  'getBusinessAccountBalance' | 'listBusinessTransactions' | 'getTransactionDetails' | 'listCustomerWallets' | 'getCustomerWallet' | 'getCustomerWalletBalance' | 'listCustomerWalletTransactions'
>;

export const coreTransactionOperations = {
  getBusinessAccountBalance: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getBusinessAccountBalance(ctx.db, businessIdOf(ctx)) }),
  },
  listBusinessTransactions: transactionOperations.listTransactions,
  getTransactionDetails: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getTransaction(ctx.db, businessIdOf(ctx), ctx.path.reference, { by: 'reference' }) }),
  },
  // The same wallets as the closed loop: the same handlers.
  listCustomerWallets: walletOperations.listWallets,
  getCustomerWallet: walletOperations.getWallet,
  getCustomerWalletBalance: walletOperations.getWalletBalance,
  listCustomerWalletTransactions: transactionOperations.listWalletTransactions,
} satisfies OperationMap<TransactionGroupOperations>;
