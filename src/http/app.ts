/**
 * The Koa application: CORS, request ids, API versioning, problem-details errors, the audit
 * trail of every change and refusal (./auditTrail.ts), the API request log (./requestTrail.ts),
 * body parsing (JSON; forms where an operation declares them), the service's pages for
 * people (./pages.ts: the portal and the API reference, outside the documents), and the two
 * API documents mounted with @koa/router (closed-loop under /cl/v1, core at the root).
 * The handlers of each document's operations and the pages are given by the caller
 * (src/server.ts wires src/handlers, src/portal and src/docs in), so that nothing in
 * src/http imports them.
 */
import type { Permission } from '../kernel/permissions.js';
import { randomUUID } from 'node:crypto';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import { isTransactionConflict, TRANSACTION_ATTEMPTS } from '../db/retry.js';
import { isDatabaseUnavailable, OutageLog } from '../db/unavailable.js';
import { requestLogger } from '../log.js';
import { beginApiRequest } from '../kernel/scheduling/apiActivity.js';
import { AppError, toProblem } from '../kernel/errors.js';
import { TokenVerifier } from './auth.js';
import { loadApi } from './compiledApi.js';
import { bodyBudget } from './bodyBudget.js';
import { corsMiddleware } from './cors.js';
import { hasBody } from './exchange.js';
import { mountApi } from './openapi.js';
import { recordAuditTrail } from './auditTrail.js';
import { ApiRequestLog, AuditRecorder } from '../audit/index.js';
import { requestLogEntryOf } from './requestTrail.js';
import { servePages, type ServicePage } from './pages.js';
import type { Services, SessionCredential } from '../kernel/services.js';
import { RateLimiter } from './rateLimit.js';
import { DEFAULT_API_VERSION, isApiVersion, SUPPORTED_API_VERSIONS, type ApiVersion } from './versions.js';
import type { Deprecation } from './deprecation.js';


/**
 * The API version a request asks for: DEFAULT_API_VERSION without the header; the
 * header's value when it is one of SUPPORTED_API_VERSIONS. Any other value, an empty one
 * and a repeated header included, throws 400 UNSUPPORTED_API_VERSION: the one rule of the
 * shared `X-API-Version` parameter, applied to every request before anything else. That
 * problem is served at DEFAULT_API_VERSION, which its `X-API-Version` names (every response
 * names the version it was served at; the documents require the header on every response).
 */
export function negotiatedVersion(header: string | string[] | undefined): ApiVersion {
  if (header === undefined) return DEFAULT_API_VERSION;
  const requested = Array.isArray(header) ? header.join(', ') : header;
  if (isApiVersion(requested)) return requested;
  throw new AppError('UNSUPPORTED_API_VERSION', `X-API-Version "${requested}" is not supported; use one of ${SUPPORTED_API_VERSIONS.join(', ')}.`, {
    errors: [{ pointer: '/header/X-API-Version', detail: `must be one of ${SUPPORTED_API_VERSIONS.join(', ')}` }],
  });
}

function errorToResponse(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isDatabaseUnavailable(err)) return new AppError('SERVICE_UNAVAILABLE', 'The service cannot reach its database; retry later.');
  // A deadlock or serialization failure that persisted through every retry (db/retry.ts):
  // nothing was committed, so the same request may simply be sent again.
  if (isTransactionConflict(err)) {
    return new AppError('SERVICE_UNAVAILABLE', 'Concurrent requests on the same records kept conflicting; nothing was changed. Retry shortly.', {
      headers: { 'Retry-After': '1' },
    });
  }
  const e = err as { status?: number; type?: string; expose?: boolean };
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && e.expose) {
    return new AppError('VALIDATION_ERROR', 'The request could not be read.');
  }
  return new AppError('INTERNAL_ERROR', 'An unexpected error occurred. It has been logged.');
}

/** The handlers of both documents' operations, one OperationSpec per operationId (src/handlers/closedLoop, src/handlers/core). */
export interface ApiHandlers {
  closedLoop: object;
  core: object;
}

/** The largest JSON request body, in bytes (1 MB; ./bodyBudget.ts weighs a chunked body at it). */
const JSON_LIMIT_BYTES = 1024 * 1024;

/**
 * Builds the application over `services` with the operations' `handlers` and the service's
 * `pages` (answered before the documents' routing, which never sees them). `apiDir`:
 * where the API documents' operations and validators were precompiled (dist/api/);
 * without it they are built in process (compiledApi.ts). Throws when a document's
 * operation has no handler.
 */
export async function createApp(
  services: Services,
  handlers: ApiHandlers,
  opts: { pages?: readonly ServicePage[]; apiDir?: string; outages?: OutageLog; requestLog?: ApiRequestLog; pinnedVersion?: (businessId: string) => Promise<ApiVersion>; clientPermissions?: (clientId: string) => Promise<readonly Permission[] | null>; sessionPrincipal?: (cookie: string) => Promise<SessionCredential>; versionDeprecations?: Partial<Record<ApiVersion, Deprecation>> } = {},
): Promise<Koa> {
  const app = new Koa({ proxy: false });
  const rateLimiter = new RateLimiter(services.db, {
    perClient: services.config.rateLimitPerMinute,
    perAddress: services.config.rateLimitPerAddressPerMinute,
    perSignInAddress: services.config.signInRateLimitPerAddressPerMinute,
  });
  const { log } = services;
  const requestLog = requestLogger(log);
  const outages = opts.outages ?? new OutageLog(services.db, log);
  const auditRecorder = new AuditRecorder(services.db);
  const apiRequestLog = opts.requestLog ?? new ApiRequestLog(services.db, log, services.config.apiRequestLogQueue, outages);
  // Every response depends on the version (header, or the business's pinned one), a CORS
  // preflight's included; `vary` appends, so CORS's `Vary: Origin` is kept beside it.
  app.use((ctx, next) => {
    ctx.vary('X-API-Version');
    return next();
  });
  app.use(corsMiddleware(services.config.corsOrigins));

  // Request id, version negotiation, problem-details errors and the request log line
  // for everything below.
  app.use(async (ctx, next) => {
    const answered = beginApiRequest(); // the background lane rests while requests come (src/kernel/scheduling/apiActivity.ts)
    const started = performance.now();
    const incoming = ctx.get('x-request-id');
    const requestId = /^[A-Za-z0-9._-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    ctx.set('X-API-Version', DEFAULT_API_VERSION);
    let problemCode: string | null = null;
    try {
      ctx.state.apiVersion = negotiatedVersion(ctx.headers['x-api-version']);
      // Without the header, an authenticated business's own default replaces it (./openapi.ts).
      ctx.state.apiVersionRequested = ctx.headers['x-api-version'] !== undefined;
      ctx.set('X-API-Version', ctx.state.apiVersion);
      await next();
    } catch (err) {
      const appError = errorToResponse(err);
      problemCode = appError.code;
      if (isTransactionConflict(err)) log.warn({ req_id: requestId, sqlstate: (err as { code: string }).code, attempts: TRANSACTION_ATTEMPTS }, 'transaction conflict persisted: answering 503');
      else if (appError.code === 'SERVICE_UNAVAILABLE' && !(err instanceof AppError)) outages.note(err);
      else if (!(err instanceof AppError)) log.error({ err, req_id: requestId }, 'unexpected error');
      ctx.status = appError.status;
      ctx.type = 'application/problem+json';
      ctx.body = toProblem(appError, ctx.path, requestId);
      for (const [name, value] of Object.entries(appError.headers)) ctx.set(name, value);
    } finally {
      // Before the response is sent: the audit entry of a change or a refusal is never lost.
      await recordAuditTrail(auditRecorder, log, ctx, problemCode);
      answered();
      const seconds = (performance.now() - started) / 1000;
      // After the answer, off its path: a push onto the request log's bounded queue.
      const logged = requestLogEntryOf(ctx, problemCode, seconds * 1000);
      if (logged) apiRequestLog.add(logged);
      services.metrics.observeRequest(ctx.state.operationId ?? ctx.state.page, ctx.status, seconds);
      requestLog.info(
        {
          req_id: requestId,
          method: ctx.method,
          path: ctx.path,
          operation_id: ctx.state.operationId,
          status: ctx.status,
          ms: Math.round(seconds * 10_000) / 10,
          client_id: ctx.state.clientId,
        },
        'request',
      );
    }
  });

  // A burst of large bodies is refused (503) before it is read, not after it filled the heap.
  app.use(bodyBudget(JSON_LIMIT_BYTES));

  // Bodies are JSON (the seed: "All bodies are JSON"), or a form where an operation
  // declares one (the OAuth2 token request); each operation then checks its own media
  // types (see rejectUndeclaredMediaType in ./openapi.ts).
  app.use(async (ctx, next) => {
    if (['POST', 'PUT', 'PATCH'].includes(ctx.method) && hasBody(ctx) && !ctx.is('application/json', '+json', 'application/x-www-form-urlencoded')) {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be sent as Content-Type: application/json.');
    }
    await next();
  });
  app.use(
    bodyParser({
      enableTypes: ['json', 'form'],
      formLimit: '16kb',
      jsonLimit: JSON_LIMIT_BYTES,
      encoding: 'utf-8',
      onError: (err) => {
        throw (err as { type?: string }).type === 'entity.too.large'
          ? new AppError('VALIDATION_ERROR', 'The request body is larger than 1 MB.')
          : new AppError('MALFORMED_JSON', 'The request body is not valid JSON.');
      },
    }),
  );

  const tokens = new TokenVerifier(services.jwtKey);
  const closedLoop = mountApi({
    api: await loadApi('closed-loop', opts.apiDir),
    apiRoot: '/cl/v1',
    operations: handlers.closedLoop as never,
    services,
    rateLimiter,
    tokens,
    failoverWaitMs: services.config.dbFailoverWaitMs,
    pinnedVersion: opts.pinnedVersion,
    clientPermissions: opts.clientPermissions,
    sessionPrincipal: opts.sessionPrincipal,
    versionDeprecations: opts.versionDeprecations,
  });
  const core = mountApi({
    api: await loadApi('core', opts.apiDir),
    apiRoot: '/',
    operations: handlers.core as never,
    services,
    rateLimiter,
    tokens,
    failoverWaitMs: services.config.dbFailoverWaitMs,
    pinnedVersion: opts.pinnedVersion,
    clientPermissions: opts.clientPermissions,
    sessionPrincipal: opts.sessionPrincipal,
    versionDeprecations: opts.versionDeprecations,
  });

  app.use(servePages(opts.pages ?? []));
  const router = new Router();
  router.all(['/cl/v1', '/cl/v1/{*rest}'], (ctx) => closedLoop.handle(ctx));
  router.all(['/', '/{*rest}'], (ctx) => core.handle(ctx));
  app.use(router.routes());
  return app;
}
