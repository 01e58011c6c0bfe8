/** Wallets: create, read, list, look up, update, balance and label assignment. */
import {
  assignWalletLabel,
  createWallet,
  getWallet,
  getWalletBalance,
  listWallets,
  lookupWallet,
  removeWalletLabel,
  updateWallet,
} from '../../businesses/index.js';
import { businessIdOf } from '../../http/operation.js';
import type { ClosedLoopMap } from './types.js';

export const walletOperations = {
  listWallets: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listWallets(ctx.db, businessIdOf(ctx), ctx.query) }),
  },
  createWallet: {
    access: 'business',
    idempotent: 'transaction',
    handle: async (ctx) => ({ status: 201, body: await createWallet(ctx.db, businessIdOf(ctx), ctx.body) }),
  },
  lookupWallet: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await lookupWallet(ctx.db, businessIdOf(ctx), ctx.query) }),
  },
  getWallet: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getWallet(ctx.db, businessIdOf(ctx), ctx.path.wallet_id) }),
  },
  updateWallet: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await updateWallet(ctx.db, businessIdOf(ctx), ctx.path.wallet_id, ctx.body) }),
  },
  getWalletBalance: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getWalletBalance(ctx.db, businessIdOf(ctx), ctx.path.wallet_id) }),
  },
  assignWalletLabel: {
    access: 'business',
    handle: async (ctx) => ({
      status: 200,
      body: await assignWalletLabel(ctx.db, businessIdOf(ctx), ctx.path.wallet_id, ctx.body.label_id),
    }),
  },
  removeWalletLabel: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await removeWalletLabel(ctx.db, businessIdOf(ctx), ctx.path.wallet_id) }),
  },
  removeSpecificWalletLabel: {
    access: 'business',
    handle: async (ctx) => ({
      status: 200,
      body: await removeWalletLabel(ctx.db, businessIdOf(ctx), ctx.path.wallet_id, ctx.path.label_id),
    }),
  },
} satisfies Partial<ClosedLoopMap>;
