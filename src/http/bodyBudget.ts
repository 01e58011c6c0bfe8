/**
 * Load shedding for request bodies: the bytes of the request bodies being read, parsed
 * and handled at once are bounded, so that a burst of large bodies (each up to the 1 MB
 * JSON limit, ./app.ts) costs a `503 SERVICE_UNAVAILABLE` with `Retry-After` instead of the
 * process's memory. `npm start` bounds V8's old generation (package.json), and a body
 * weighs several times its bytes once parsed and validated: without this bound, about 200
 * bodies of 1 MB at once exhaust it and the process aborts (openapi/DESIGN.md, "Memory").
 *
 * A body is weighed at its `Content-Length`, a body without one (chunked) at the limit
 * it may reach; its weight is held from its first byte until the response is written.
 * Requests without a body are never refused here. Every operation with a request body
 * documents the 503 (the `ServiceUnavailable` response).
 */
import type Koa from 'koa';
import { AppError } from '../kernel/errors.js';
import { hasBody } from './exchange.js';

/** Request-body bytes in progress at once, per instance: 16 MiB. */
export const BODY_BYTES_IN_PROGRESS = 16 * 1024 * 1024;

/**
 * The middleware: holds each body's weight (bytes, at most `bodyLimit`) while its request
 * runs; throws 503 SERVICE_UNAVAILABLE (Retry-After 1) when `budget` would be exceeded.
 */
export function bodyBudget(bodyLimit: number, budget = BODY_BYTES_IN_PROGRESS): Koa.Middleware {
  let inProgress = 0;
  return async (ctx, next) => {
    if (!hasBody(ctx)) return next();
    const declared = ctx.request.length;
    const weight = declared === undefined ? bodyLimit : Math.min(declared, bodyLimit);
    if (inProgress + weight > budget) {
      throw new AppError('SERVICE_UNAVAILABLE', 'The service is reading as many request bodies as it can hold; retry after Retry-After seconds.', {
        headers: { 'Retry-After': '1' },
      });
    }
    inProgress += weight;
    try {
      await next();
    } finally {
      inProgress -= weight;
    }
  };
}
