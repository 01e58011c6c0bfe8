/** Webhook endpoints (preview): register, list, read, update, delete; their health, delivery log, test event, secret rotation and recovery. */
import {
  createWebhookEndpoint,
  DEFAULT_PREVIOUS_SECRET_SECONDS,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookEndpointSecret,
  sendWebhookTestEvent,
  updateWebhookEndpoint,
} from '../../webhooks/index.js';
import { ATTEMPT_CSV_COLUMNS, listDeliveryAttempts, listEndpointHealth } from '../../webhooks/index.js';
import { recoverDeliveries } from '../../webhooks/index.js';
import { businessIdOf, csvExport } from '../../http/operation.js';
import type { ClosedLoopMap } from './types.js';

export const webhookOperations = {
  createWebhookEndpoint: {
    access: 'business',
    idempotent: 'transaction',
    async handle(ctx) {
      const keys = ctx.services.keys.webhookSecrets;
      const endpoint = await createWebhookEndpoint(ctx.db, { sandbox: ctx.services.config.sandbox }, keys, businessIdOf(ctx), ctx.body);
      return { status: 201, body: endpoint, headers: { Location: `/cl/v1/webhooks/endpoints/${endpoint.id}` } };
    },
  },
  listWebhookEndpoints: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listWebhookEndpoints(ctx.db, businessIdOf(ctx), ctx.query) }),
  },
  getWebhookEndpoint: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getWebhookEndpoint(ctx.db, businessIdOf(ctx), ctx.path.endpoint_id) }),
  },
  updateWebhookEndpoint: {
    access: 'business',
    handle: async (ctx) => ({
      status: 200,
      body: await updateWebhookEndpoint(ctx.db, { sandbox: ctx.services.config.sandbox }, businessIdOf(ctx), ctx.path.endpoint_id, ctx.body),
    }),
  },
  deleteWebhookEndpoint: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await deleteWebhookEndpoint(ctx.db, businessIdOf(ctx), ctx.path.endpoint_id) }),
  },
  listWebhookDeliveryAttempts: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listDeliveryAttempts(ctx.db, businessIdOf(ctx), ctx.path.endpoint_id, ctx.query) }),
  },
  exportWebhookDeliveryAttemptsCsv: {
    access: 'business',
    handle: async (ctx) => csvExport(ATTEMPT_CSV_COLUMNS, (page) => listDeliveryAttempts(ctx.db, businessIdOf(ctx), ctx.path.endpoint_id, { ...ctx.query, ...page })),
  },
  listWebhookEndpointHealth: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listEndpointHealth(ctx.db, businessIdOf(ctx), ctx.query) }),
  },
  sendWebhookTestEvent: {
    access: 'business',
    handle: async (ctx) => ({ status: 202, body: await sendWebhookTestEvent(ctx.db, ctx.services.jobs, businessIdOf(ctx), ctx.path.endpoint_id) }),
  },
  rotateWebhookEndpointSecret: {
    access: 'business',
    async handle(ctx) {
      const keys = ctx.services.keys.webhookSecrets;
      const seconds = ctx.body?.previous_secret_valid_seconds ?? DEFAULT_PREVIOUS_SECRET_SECONDS;
      return { status: 200, body: await rotateWebhookEndpointSecret(ctx.db, keys, businessIdOf(ctx), ctx.path.endpoint_id, seconds) };
    },
  },
  recoverWebhookDeliveries: {
    access: 'business',
    handle: async (ctx) => ({
      status: 202,
      body: await recoverDeliveries(ctx.db, ctx.services.jobs, businessIdOf(ctx), ctx.path.endpoint_id, ctx.body.since),
    }),
  },
} satisfies Partial<ClosedLoopMap>;
