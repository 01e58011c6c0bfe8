/** The audit log: list the business's audit events, or export them as CSV. */
import type { operations } from '../../../generated/types/core.js';
import { auditEventsCsv, listAuditEvents } from '../../audit/index.js';
import { businessIdOf, type OperationMap } from '../../http/operation.js';

type AuditOperations = Pick<operations, 'listAuditEvents' | 'exportAuditEventsCsv'>;

export const auditOperations = {
  listAuditEvents: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listAuditEvents(ctx.db, businessIdOf(ctx), ctx.query) }),
  },
  exportAuditEventsCsv: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await auditEventsCsv(ctx.db, businessIdOf(ctx), ctx.query), contentType: 'text/csv; charset=utf-8' }),
  },
} satisfies OperationMap<AuditOperations>;
