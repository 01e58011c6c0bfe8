/** Webhook endpoints (preview): register and list. */
import { webhookSecretKeys } from '../../webhooks/secrets.js';
import { createWebhookEndpoint, listWebhookEndpoints } from '../../webhooks/endpoints.js';
import { businessIdOf } from '../../http/operation.js';
import type { ClosedLoopMap } from './types.js';

export const webhookOperations = {
  createWebhookEndpoint: {
    access: 'business',
    async handle(ctx) {
      const keys = await webhookSecretKeys(ctx.services.db, ctx.services.config);
      await createWebhookEndpoint(ctx.db, { sandbox: ctx.services.config.sandbox }, keys, businessIdOf(ctx), ctx.body);
      return { status: 200, body: {} };
    },
  },
  listWebhookEndpoints: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listWebhookEndpoints(ctx.db, businessIdOf(ctx), ctx.query) }),
  },
} satisfies Partial<ClosedLoopMap>;
