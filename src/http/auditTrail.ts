/**
 * The audit trail at the HTTP edge: after a documented operation has been answered (or
 * refused) and before the response is sent, the entry of a state-changing request (any method
 * but the safe ones, ./admission.ts SAFE_METHODS), whatever its outcome, and of any 403, is recorded in the audit
 * log (src/audit/). Who: the portal user (`Principal.userId`) or else the API client; without
 * a principal, the `koa.state.auditSubject` a public operation's handler set (a portal sign-in's
 * user, a token request's API key, granted or refused). A request that
 * names no business (an unknown client's token request, a platform call) is a service log
 * line instead: the audit log is kept per business.
 */
import type { Context as KoaContext } from 'koa';
import type { AuditEntry, AuditRecorder, AuditSubject } from '../audit/index.js';
import type { Logger } from '../log.js';
import type { Principal } from '../kernel/services.js';
import { SAFE_METHODS } from './admission.js';


/** A well-formed `koa.state.auditSubject`, or null (it is set by handlers: read defensively). */
function subjectOf(value: unknown): AuditSubject | null {
  const s = value as Partial<AuditSubject> | null | undefined;
  if (typeof s?.businessId !== 'string') return null;
  if (typeof s.userId === 'string') return { businessId: s.businessId, userId: s.userId };
  return typeof s.clientId === 'string' ? { businessId: s.businessId, clientId: s.clientId } : { businessId: s.businessId };
}

/** The most characters of one target id (the documents' `AuditEvent.target_ids` items). */
const TARGET_CHARS = 200;

/**
 * A path parameter as a target id: as sent when it is printable ASCII (every id and reference
 * the documents accept), else percent-encoded; cut at TARGET_CHARS. A refused request is
 * recorded before its parameters are validated, so they may be anything.
 */
function targetOf(value: string): string {
  return (/^[\x21-\x7E]+$/.test(value) ? value : encodeURIComponent(value)).slice(0, TARGET_CHARS);
}

/** The most target ids of one event (the documents' `AuditEvent.target_ids`). */
const MAX_TARGETS = 20;

/**
 * The ids of what a 2xx answer created or names: its body's `id`; for a body without one, its
 * top-level string fields named `*_id` (a payout's `payout_id` and `transaction_id`, a bulk
 * payout's `bulk_payout_id`, an onboarding's `session_id` and `customer_id`), so that the
 * log can be asked who created any object the documents answer.
 */
function answeredIds(koa: KoaContext): string[] {
  if (koa.status >= 300) return [];
  const body = koa.body as Record<string, unknown> | null | undefined;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [];
  if (typeof body.id === 'string') return [body.id];
  return Object.entries(body)
    .filter(([name, value]) => name.endsWith('_id') && typeof value === 'string' && value !== '')
    .map(([, value]) => targetOf(value as string));
}

/**
 * The audit entry of the request `koa` once answered (`problemCode`: the code of its problem
 * response, if it was one), null when it is not audited (no operation, a read answered), or
 * `{ unowned }` when it should be but names no business.
 */
export function auditEntryOf(koa: KoaContext, problemCode: string | null): AuditEntry | { unowned: true } | null {
  const operationId = koa.state.operationId as string | undefined;
  if (!operationId || (SAFE_METHODS.has(koa.method) && koa.status !== 403)) return null;
  const principal = koa.state.principal as Principal | null | undefined;
  const subject = principal ? null : subjectOf(koa.state.auditSubject);
  const businessId = principal?.businessId ?? subject?.businessId;
  const userId = principal ? principal.userId : subject?.userId;
  const actorId = userId ?? principal?.clientId ?? subject?.clientId;
  if (!businessId || !actorId) return { unowned: true };
  const params = (koa.state.pathParams ?? {}) as Record<string, string>;
  const targets = Object.values(params).filter((v) => v !== '').map(targetOf);
  for (const id of answeredIds(koa)) if (!targets.includes(id) && targets.length < MAX_TARGETS) targets.push(id);
  return {
    businessId,
    actorType: userId ? 'user' : 'api_key',
    actorId,
    operationId,
    method: koa.method,
    targetIds: targets,
    status: koa.status,
    problemCode,
    replayed: koa.response.get('Idempotent-Replayed') === 'true',
    requestId: String(koa.state.requestId),
    ipAddress: koa.ip || null,
    userAgent: koa.get('user-agent') || null,
  };
}

/**
 * Records the audit entry of the answered request `koa` (see auditEntryOf) through `recorder`; an
 * unowned one, and one the database refused, go to the service log `log` in full instead, so
 * that the answer already decided (a committed transfer) is sent as it is. Never throws.
 */
export async function recordAuditTrail(recorder: AuditRecorder, log: Logger, koa: KoaContext, problemCode: string | null): Promise<void> {
  const entry = auditEntryOf(koa, problemCode);
  if (entry === null) return;
  const line = { req_id: koa.state.requestId, operation_id: koa.state.operationId, method: koa.method, status: koa.status, problem_code: problemCode, client_id: koa.state.clientId, ip: koa.ip };
  if ('unowned' in entry) {
    log.info(line, 'audit: no business named, not in the audit log');
    return;
  }
  try {
    await recorder.record(entry);
  } catch (err) {
    log.error({ ...line, err, audit_entry: entry }, 'audit: the entry could not be recorded');
  }
}
