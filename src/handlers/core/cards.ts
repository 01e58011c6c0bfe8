/** Cards: issuance (seed E5) and management, with the display of sensitive data (seed E6). */
import type { Knex } from 'knex';
import type { Context as KoaContext } from 'koa';
import type { operations } from '../../../generated/types/core.js';
import { completeCardIssuance, getCardIssuance, issueCard, verifyCardIssuanceOtp } from '../../domain/cardIssuance.js';
import { cardKeys } from '../../domain/cardKeys.js';
import type { CardEnv } from '../../domain/cardOtp.js';
import { changeCardStatus, getCard } from '../../domain/cards.js';
import { displayCardSensitiveData, verifyDisplaySensitiveDataOtp } from '../../domain/cardSensitiveData.js';
import { businessIdOf, type OperationMap, type Principal, type Services } from '../../http/operation.js';
import { flowEnv } from './flowEnv.js';

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
>;

/** A business request's environment with the card data keys. */
async function cardEnv(ctx: { db: Knex; principal: Principal | null; services: Services; koa: KoaContext }): Promise<CardEnv> {
  return { ...(await flowEnv(ctx)), cardKeys: await cardKeys(ctx.services.db, ctx.services.config) };
}

export const cardOperations = {
  issueCard: {
    access: 'business',
    async handle(ctx) {
      const { created, issuance } = await issueCard(await flowEnv(ctx), ctx.koa.get('idempotency-key'), ctx.body);
      return created ? { status: 201, body: issuance } : { status: 200, body: issuance };
    },
  },
  getCardIssuance: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getCardIssuance(await flowEnv(ctx), ctx.path.card_issuance_id) }),
  },
  completeCardIssuance: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await completeCardIssuance(await flowEnv(ctx), ctx.path.card_issuance_id, ctx.body) }),
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
    handle: async (ctx) => ({ status: 200, body: await displayCardSensitiveData(await flowEnv(ctx), ctx.path.card_id, ctx.body) }),
  },
  verifyDisplaySensitiveDataOtp: {
    access: 'business',
    async handle(ctx) {
      const data = await verifyDisplaySensitiveDataOtp(await cardEnv(ctx), ctx.body);
      ctx.koa.set('Cache-Control', 'no-store'); // the answer holds card data
      return { status: 200, body: data };
    },
  },
} satisfies OperationMap<CardOperations>;
