/** Events: list the business's events, and send one again to one webhook endpoint. */
import type { operations } from '../../../generated/types/core.js';
import { listEvents, redeliverEvent } from '../../webhooks/index.js';
import { businessIdOf, type OperationMap } from '../../http/operation.js';

type EventOperations = Pick<operations, 'listEvents' | 'redeliverEvent'>;

export const eventOperations = {
  listEvents: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listEvents(ctx.db, businessIdOf(ctx), ctx.query, ctx.apiVersion) }),
  },
  redeliverEvent: {
    access: 'business',
    async handle(ctx) {
      const body = await redeliverEvent(ctx.db, ctx.services.jobs, businessIdOf(ctx), ctx.path.event_id, ctx.body.webhook_id);
      return { status: 202, body };
    },
  },
} satisfies OperationMap<EventOperations>;
