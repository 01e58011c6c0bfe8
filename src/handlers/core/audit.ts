/** The audit log (list the business's audit events, or export them as CSV) and the API request log (list, or get one). */
import type { operations } from '../../../generated/types/core.js';
import { AUDIT_CSV_COLUMNS, getApiRequest, listApiRequests, listAuditEvents } from '../../audit/index.js';
import { businessIdOf, csvExport, type OperationMap } from '../../http/operation.js';

type AuditOperations = Pick<operations, 'listAuditEvents' | 'exportAuditEventsCsv' | 'listApiRequests' | 'getApiRequest'>;

export const auditOperations = {
  listAuditEvents: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listAuditEvents(ctx.db, businessIdOf(ctx), ctx.query) }),
  },
  exportAuditEventsCsv: {
    access: 'business',
    handle: async (ctx) => csvExport(AUDIT_CSV_COLUMNS, (page) => listAuditEvents(ctx.db, businessIdOf(ctx), { ...ctx.query, ...page })),
  },
  listApiRequests: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listApiRequests(ctx.db, businessIdOf(ctx), ctx.query) }),
  },
  getApiRequest: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getApiRequest(ctx.db, businessIdOf(ctx), ctx.path.request_id) }),
  },
} satisfies OperationMap<AuditOperations>;
