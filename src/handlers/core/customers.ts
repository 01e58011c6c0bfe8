/** Customers: read one, list them, list one's cards; and the provider callbacks that move their onboarding. */
import type { operations } from '../../../generated/types/core.js';
import { listCustomerCards } from '../../cards/index.js';
import { CUSTOMER_CSV_COLUMNS, getCustomer, listCustomers } from '../../customers/index.js';
import { runAfterCommit, type ServiceEnv } from '../../customers/index.js';
import { receiveIdentityVerificationResult, receiveScreeningResult, type CallbackAcknowledgement } from '../../customers/index.js';
import { businessIdOf, csvExport, type OperationMap } from '../../http/operation.js';
import { decodeCursor } from '../../kernel/pagination.js';
import { serviceEnv } from './requestEnv.js';

type CustomerOperations = Pick<operations, 'listCustomers' | 'exportCustomersCsv' | 'getCustomer' | 'listCustomerCards' | 'receiveIdentityVerificationResult' | 'receiveScreeningResult'>;

/** A provider callback operation: apply the result, then run what the sandbox delivers after the commit. */
export function callback<Body>(receive: (env: ServiceEnv, body: Body) => Promise<CallbackAcknowledgement>) {
  return {
    access: 'signature' as const,
    async handle(ctx: Parameters<typeof serviceEnv>[0] & { body: Body }) {
      const env = await serviceEnv(ctx);
      const body = await receive(env, ctx.body);
      await runAfterCommit(env);
      return { status: 200 as const, body };
    },
  };
}

export const customerOperations = {
  listCustomers: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listCustomers(ctx.db, businessIdOf(ctx), ctx.query) }),
  },
  exportCustomersCsv: {
    access: 'business',
    handle: async (ctx) => csvExport(CUSTOMER_CSV_COLUMNS, (page) => listCustomers(ctx.db, businessIdOf(ctx), { ...ctx.query, ...page })),
  },
  getCustomer: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getCustomer(ctx.db, businessIdOf(ctx), ctx.path.customer_id) }),
  },
  listCustomerCards: {
    access: 'business',
    async handle(ctx) {
      const businessId = businessIdOf(ctx);
      // A bad request is 400 whoever the customer; then 404 CUSTOMER_NOT_FOUND for an unknown
      // or another business's customer, rather than an empty page.
      if (ctx.query.cursor) decodeCursor(ctx.query.cursor);
      await getCustomer(ctx.db, businessId, ctx.path.customer_id);
      return { status: 200, body: await listCustomerCards(ctx.db, businessId, ctx.path.customer_id, ctx.query) };
    },
  },
  receiveIdentityVerificationResult: callback(receiveIdentityVerificationResult),
  receiveScreeningResult: callback(receiveScreeningResult),
} satisfies OperationMap<CustomerOperations>;
