/** Cards: issuance (seed E5) and management, with the display of sensitive data (seed E6). */
import type { Knex } from 'knex';
import type { Context as KoaContext } from 'koa';
import type { operations } from '../../../generated/types/core.js';
import { completeCardIssuance, getCardIssuance, issueCard, verifyCardIssuanceOtp } from '../../cards/index.js';
import type { CardEnv } from '../../cards/index.js';
import { changeCardStatus, getCard } from '../../cards/index.js';
import { displayCardSensitiveData, verifyDisplaySensitiveDataOtp } from '../../cards/index.js';
import { businessIdOf, type OperationMap } from '../../http/operation.js';
import type { Principal, Services } from '../../kernel/services.js';
import { requestEnv } from './requestEnv.js';
import { startCardStep, verifyCardStep, type CardStepPurpose, type StepRequest } from '../../cards/index.js';

type CardOperations = Pick<
  operations,
  | 'issueCard'
  | 'getCardIssuance'
  | 'completeCardIssuance'
  | 'verifyCardIssuanceOtp'
  | 'getCard'
  | 'changeCardStatus'
  | 'displayCardSensitiveData'
  | 'verifyDisplaySensitiveDataOtp'
  | 'setCardPin'
  | 'verifyCardPinOtp'
  | 'activateCard'
  | 'verifyCardActivationOtp'
  | 'convertCardToPhysical'
  | 'verifyCardConversionOtp'
  | 'replaceCard'
  | 'verifyReplaceCardOtp'
>;


/** A business request's environment with the card data keys. */
async function cardEnv(ctx: { db: Knex; principal: Principal | null; services: Services; koa: KoaContext }): Promise<CardEnv> {
  return { ...(await requestEnv(ctx)), cardKeys: ctx.services.keys.cardData };
}

type StepContext = Parameters<typeof cardEnv>[0] & { path: { card_id: string } };

/** The handler of step `purpose` (answers its session). */
function stepStart(purpose: CardStepPurpose) {
  return {
    access: 'business' as const,
    handle: async (ctx: StepContext & { body: StepRequest }) => ({ status: 200 as const, body: await startCardStep(await cardEnv(ctx), ctx.path.card_id, purpose, ctx.body) }),
  };
}

/** The handler of the "verify … OTP" of step `purpose` (answers the card). */
function stepVerify(purpose: CardStepPurpose) {
  return {
    access: 'business' as const,
    handle: async (ctx: StepContext & { path: { session_id: string }; body: { otp: string } }) => ({
      status: 200 as const,
      body: await verifyCardStep(await cardEnv(ctx), ctx.path.card_id, purpose, ctx.path.session_id, ctx.body.otp),
    }),
  };
}

export const cardOperations = {
  issueCard: {
    access: 'business',
    async handle(ctx) {
      const { created, issuance } = await issueCard(await requestEnv(ctx), ctx.koa.get('idempotency-key'), ctx.body);
      return created ? { status: 201, body: issuance } : { status: 200, body: issuance };
    },
  },
  getCardIssuance: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getCardIssuance(await requestEnv(ctx), ctx.path.card_issuance_id) }),
  },
  completeCardIssuance: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await completeCardIssuance(await requestEnv(ctx), ctx.path.card_issuance_id, ctx.body) }),
  },
  verifyCardIssuanceOtp: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await verifyCardIssuanceOtp(await cardEnv(ctx), ctx.path.card_issuance_id, ctx.body.otp) }),
  },
  getCard: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getCard(ctx.db, businessIdOf(ctx), ctx.path.card_id) }),
  },
  changeCardStatus: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await changeCardStatus(ctx.db, businessIdOf(ctx), ctx.path.card_id, ctx.body.status) }),
  },
  displayCardSensitiveData: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await displayCardSensitiveData(await requestEnv(ctx), ctx.path.card_id, ctx.body) }),
  },
  verifyDisplaySensitiveDataOtp: {
    access: 'business',
    async handle(ctx) {
      const data = await verifyDisplaySensitiveDataOtp(await cardEnv(ctx), ctx.body);
      ctx.koa.set('Cache-Control', 'no-store'); // the answer holds card data
      return { status: 200, body: data };
    },
  },
  // The OTP-guarded card steps (src/cards/steps.ts): the step, then its code.
  setCardPin: stepStart('SET_PIN'),
  verifyCardPinOtp: stepVerify('SET_PIN'),
  activateCard: stepStart('ACTIVATION'),
  verifyCardActivationOtp: stepVerify('ACTIVATION'),
  convertCardToPhysical: stepStart('CONVERSION'),
  verifyCardConversionOtp: stepVerify('CONVERSION'),
  replaceCard: stepStart('REPLACEMENT'),
  verifyReplaceCardOtp: stepVerify('REPLACEMENT'),
} satisfies OperationMap<CardOperations>;
