/**
 * Card test helpers of the core API (sandbox only: 404 NOT_FOUND when
 * SANDBOX=false): the card transaction simulator (an authorization, a balance
 * inquiry; src/domain/cardSimulator.ts).
 */
import type { operations } from '../../../generated/types/core.js';
import { cardKeys } from '../../domain/cardKeys.js';
import { simulateCardAuthorization, simulateCardBalanceInquiry, type SimulatorEnv } from '../../domain/cardSimulator.js';
import { businessIdOf, type OperationMap, type Principal, type Services } from '../../http/operation.js';
import type { Knex } from 'knex';
import { requireSandbox } from './flowEnv.js';

type CardTestHelperOperations = Pick<operations, 'simulateCardAuthorization' | 'simulateCardBalanceInquiry'>;

/** The simulator's environment, once the sandbox is checked. */
async function simulatorEnv(ctx: { db: Knex; principal: Principal | null; services: Services }): Promise<SimulatorEnv> {
  requireSandbox(ctx.services);
  return { db: ctx.db, businessId: businessIdOf(ctx), cardKeys: await cardKeys(ctx.services.db, ctx.services.config) };
}

export const cardTestHelperOperations = {
  simulateCardAuthorization: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await simulateCardAuthorization(await simulatorEnv(ctx), ctx.body) }),
  },
  simulateCardBalanceInquiry: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await simulateCardBalanceInquiry(await simulatorEnv(ctx), ctx.body) }),
  },
} satisfies OperationMap<CardTestHelperOperations>;
