/**
 * The API request log at the HTTP edge: once a documented operation has been answered, the
 * request, if a principal named its business (an API key's token or a portal session), is
 * handed to the request log's queue (src/audit/requestLog.ts), which writes it after the
 * response. Token requests and unauthenticated calls name no principal and are not recorded.
 * Headers are not recorded: the idempotency key is the only one kept.
 */
import type { Context as KoaContext } from 'koa';
import type { ApiRequestEntry } from '../audit/index.js';
import type { Principal } from '../kernel/services.js';
import { hasBody } from './exchange.js';

/** A well-formed `Idempotency-Key` (the documents' IdempotencyKey); another is not kept. */
const IDEMPOTENCY_KEY = /^[\x21-\x7E]{1,255}$/;

/**
 * The request log entry of the answered request `koa` (`problemCode`: its problem's code, if
 * it failed; `durationMs`: from its arrival to its answer), or null when it is not recorded
 * (no documented operation, or no business principal).
 */
export function requestLogEntryOf(koa: KoaContext, problemCode: string | null, durationMs: number): ApiRequestEntry | null {
  const operationId = koa.state.operationId as string | undefined;
  const principal = koa.state.principal as Principal | null | undefined;
  if (!operationId || !principal?.businessId) return null;
  return {
    businessId: principal.businessId,
    at: new Date(),
    requestId: String(koa.state.requestId),
    operationId,
    method: koa.method,
    path: koa.path,
    status: koa.status,
    problemCode,
    durationMs,
    idempotencyKey: IDEMPOTENCY_KEY.test(koa.get('idempotency-key')) ? koa.get('idempotency-key') : null,
    actorType: principal.userId ? 'user' : 'api_key',
    actorId: principal.userId ?? principal.clientId,
    requestBody: hasBody(koa) ? (koa.request as { body?: unknown }).body : undefined,
    responseBody: koa.body,
  };
}
