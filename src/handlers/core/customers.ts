/** Customers: read one, list them; and the provider callbacks that move their onboarding. */
import type { operations } from '../../../generated/types/core.js';
import { getCustomer, listCustomers } from '../../customers/customers.js';
import { settle, type ServiceEnv } from '../../customers/customerEnv.js';
import { receiveIdentityVerificationResult, receiveScreeningResult, type CallbackAcknowledgement } from '../../customers/providerCallbacks.js';
import { businessIdOf, type OperationMap } from '../../http/operation.js';
import { serviceEnv } from './flowEnv.js';

type CustomerOperations = Pick<operations, 'listCustomers' | 'getCustomer' | 'receiveIdentityVerificationResult' | 'receiveScreeningResult'>;

/** A provider callback operation: apply the result, then run what the sandbox delivers after the commit. */
export function callback<Body>(receive: (env: ServiceEnv, body: Body) => Promise<CallbackAcknowledgement>) {
  return {
    access: 'signature' as const,
    async handle(ctx: Parameters<typeof serviceEnv>[0] & { body: Body }) {
      const env = await serviceEnv(ctx);
      const body = await receive(env, ctx.body);
      await settle(env);
      return { status: 200 as const, body };
    },
  };
}

export const customerOperations = {
  listCustomers: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listCustomers(ctx.db, businessIdOf(ctx), ctx.query) }),
  },
  getCustomer: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getCustomer(ctx.db, businessIdOf(ctx), ctx.path.customer_id) }),
  },
  receiveIdentityVerificationResult: callback(receiveIdentityVerificationResult),
  receiveScreeningResult: callback(receiveScreeningResult),
} satisfies OperationMap<CustomerOperations>;
