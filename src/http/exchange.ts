/**
 * The request and the response as they cross the wire, below the operation's logic: whether
 * a request carries a body, whether its media type is one the operation declares, and how a
 * (stored or fresh) response is written on the Koa context.
 */
import type { Context as KoaContext } from 'koa';
import { AppError } from '../kernel/errors.js';
import type { StoredResponse } from '../kernel/idempotency/idempotency.js';
import type { ApiOperation } from './apiTypes.js';

/** Writes a response on the Koa context. */
export function send(koa: KoaContext, res: StoredResponse): void {
  koa.status = res.status;
  koa.body = res.body as never;
  koa.type = res.contentType ?? 'application/json';
  if (res.headers) koa.set(res.headers);
}

/** Whether the request carries a body (a length, or chunked). */
export function hasBody(koa: KoaContext): boolean {
  return (koa.request.length ?? 0) > 0 || koa.get('transfer-encoding') !== '';
}

/**
 * Throws 400 UNSUPPORTED_MEDIA_TYPE when the request has a body whose media type the
 * operation does not declare (e.g. a form body anywhere but the token request).
 */
export function rejectUndeclaredMediaType(operation: ApiOperation, koa: KoaContext): void {
  const declared = operation.mediaTypes;
  if (declared.length && hasBody(koa) && !koa.is(declared)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `The request body must be sent as ${declared.join(' or ')}.`);
  }
}
