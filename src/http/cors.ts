/**
 * CORS (Fetch standard) through `@koa/cors`, so that browsers can try the API from a
 * hosted docs page and fetch the API documents (openapi/API_CONVENTIONS.md,
 * "Security": preflight 204).
 *
 * Allowed origins come from CORS_ORIGINS: `*` (default) answers every origin with
 * `Access-Control-Allow-Origin: *`; a comma-separated list of origins answers only
 * those, echoing the request's origin. Preflights allow the methods the API uses and
 * the request headers `Authorization`, `Content-Type`, `Idempotency-Key`,
 * `X-API-Version` and `X-Request-Id`; responses expose the headers a client reads.
 * Credentials (cookies) are never involved: the API authenticates by bearer token.
 */
import cors from '@koa/cors';
import type { Middleware } from 'koa';

export const CORS_ALLOW_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-API-Version', 'X-Request-Id'];
export const CORS_EXPOSE_HEADERS = [
  'X-Request-Id',
  'X-API-Version',
  'Idempotent-Replayed',
  'Retry-After',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'WWW-Authenticate',
  'Allow',
  'Deprecation',
  'Sunset',
  'Link',
];

/** The CORS middleware for `origins` (`'*'` or a list of exact origins such as `https://docs.example.com`). */
export function corsMiddleware(origins: '*' | string[]): Middleware {
  return cors({
    origin: origins === '*' ? '*' : (ctx) => (origins.includes(ctx.get('origin')) ? ctx.get('origin') : ''),
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: CORS_EXPOSE_HEADERS,
    maxAge: 600,
    keepHeadersOnError: true,
  });
}
