/** Events: list the business's events (or export them as CSV), and send one again to one webhook endpoint. */
import type { operations } from '../../../generated/types/core.js';
import { EVENT_CSV_COLUMNS, listEvents, redeliverEvent } from '../../webhooks/index.js';
import { businessIdOf, csvExport, type OperationMap } from '../../http/operation.js';

type EventOperations = Pick<operations, 'listEvents' | 'exportEventsCsv' | 'redeliverEvent'>;

export const eventOperations = {
  listEvents: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listEvents(ctx.db, businessIdOf(ctx), ctx.query, ctx.apiVersion) }),
  },
  exportEventsCsv: {
    access: 'business',
    handle: async (ctx) => csvExport(EVENT_CSV_COLUMNS, (page) => listEvents(ctx.db, businessIdOf(ctx), { ...ctx.query, ...page }, ctx.apiVersion)),
  },
  redeliverEvent: {
    access: 'business',
    async handle(ctx) {
      const body = await redeliverEvent(ctx.db, ctx.services.jobs, businessIdOf(ctx), ctx.path.event_id, ctx.body.webhook_id);
      return { status: 202, body };
    },
  },
} satisfies OperationMap<EventOperations>;
