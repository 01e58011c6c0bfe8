/** The payout whitelist: add, list and delete entries; read and set enforcement. */
import type { operations } from '../../../generated/types/core.js';
import {
  addWhitelistEntries,
  deleteWhitelistEntry,
  getWhitelistEnforcement,
  listWhitelistEntries,
  setWhitelistEnforcement,
} from '../../payouts/index.js';
import { businessIdOf, type OperationMap } from '../../http/operation.js';

type WhitelistOperations = Pick<
  operations,
  'addPayoutWhitelistEntries' | 'listPayoutWhitelistEntries' | 'deletePayoutWhitelistEntry' | 'getPayoutWhitelistEnforcement' | 'setPayoutWhitelistEnforcement'
>;

export const payoutWhitelistOperations = {
  addPayoutWhitelistEntries: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: { data: await addWhitelistEntries(ctx.db, businessIdOf(ctx), ctx.body.entries) } }),
  },
  listPayoutWhitelistEntries: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listWhitelistEntries(ctx.db, businessIdOf(ctx), ctx.query) }),
  },
  deletePayoutWhitelistEntry: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await deleteWhitelistEntry(ctx.db, businessIdOf(ctx), ctx.path.entry_id) }),
  },
  getPayoutWhitelistEnforcement: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getWhitelistEnforcement(ctx.db, businessIdOf(ctx)) }),
  },
  setPayoutWhitelistEnforcement: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await setWhitelistEnforcement(ctx.db, businessIdOf(ctx), ctx.body.enforced) }),
  },
} satisfies OperationMap<WhitelistOperations>;
