/**
 * Card test helpers of the core API (sandbox only: 404 NOT_FOUND when
 * SANDBOX=false): the card transaction simulator (an authorization, a balance
 * inquiry; src/cards/simulator.ts) and the tokenization activation code
 * requests (create, seed E9, verifyOtp, confirmIvr; src/cards/tokenization.ts).
 */
import type { operations } from '../../../generated/types/core.js';
import { simulateCardAuthorization, simulateCardBalanceInquiry, type SimulatorEnv } from '../../cards/index.js';
import { businessIdOf, type OperationMap } from '../../http/operation.js';
import type { Principal, Services } from '../../kernel/services.js';
import type { Knex } from 'knex';
import { requestEnv, requireSandbox } from './requestEnv.js';
import { confirmActivationIvr, createActivationCodeRequest, getActivationCodeRequest, verifyActivationCode } from '../../cards/index.js';

type CardTestHelperOperations = Pick<
  operations,
  'simulateCardAuthorization' | 'simulateCardBalanceInquiry' | 'createSandboxActivationCodeRequest' | 'getActivationCodeRequest' | 'verifyOtp' | 'confirmIvr'
>;

/** A business request's flow environment, once the sandbox is checked. */
async function sandboxRequestEnv(ctx: Parameters<typeof requestEnv>[0]) {
  requireSandbox(ctx.services);
  return requestEnv(ctx);
}

/** The simulator's environment, once the sandbox is checked. */
async function simulatorEnv(ctx: { db: Knex; principal: Principal | null; services: Services }): Promise<SimulatorEnv> {
  requireSandbox(ctx.services);
  return { db: ctx.db, businessId: businessIdOf(ctx), cardKeys: ctx.services.keys.cardData };
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
  createSandboxActivationCodeRequest: {
    access: 'business',
    handle: async (ctx) => ({ status: 201, body: await createActivationCodeRequest(await sandboxRequestEnv(ctx), ctx.body) }),
  },
  getActivationCodeRequest: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getActivationCodeRequest(await sandboxRequestEnv(ctx), ctx.path.requestId) }),
  },
  verifyOtp: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await verifyActivationCode(await sandboxRequestEnv(ctx), ctx.path.requestId, ctx.body.otp) }),
  },
  confirmIvr: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await confirmActivationIvr(await sandboxRequestEnv(ctx), ctx.path.requestId, ctx.body.result) }),
  },
} satisfies OperationMap<CardTestHelperOperations>;
