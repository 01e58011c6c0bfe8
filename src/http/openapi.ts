/**
 * One API per bundled document (generated/openapi/*.json): its operations and
 * openapi-backend's request validators (compiledApi.ts: precompiled at build
 * time, or built in process); a routing table built once routes each request
 * to its operationId; this module checks the bearer token, validates, applies
 * access rules, rate limits and idempotency, and calls the typed handler from
 * the OperationMap.
 */
import type { Context as KoaContext } from 'koa';
import { AppError } from '../errors.js';
import type { TokenVerifier } from './auth.js';
import type { ApiOperation, CompiledApi } from './compiledApi.js';
import { requestHash, withIdempotency, type KeyClaim, type StoredResponse } from './idempotency.js';
import type { Access, OperationContext, OperationSpec, Principal, Services } from './operation.js';
import type { RateLimiter } from './rateLimit.js';
import { RoutingTable } from './routing.js';
import { rejectNulCharacters, validateRequest } from './validation.js';


export interface MountedApi {
  /** Serves a Koa request whose path belongs to this document. */
  handle(koa: KoaContext): Promise<void>;
}

/** Writes a response on the Koa context. */
export function send(koa: KoaContext, res: StoredResponse): void {
  koa.status = res.status;
  koa.body = res.body as never;
  koa.type = res.contentType ?? 'application/json';
}

/** Who may call `operationId` per its spec; throws FORBIDDEN. Counts the call against the rate limit. */
function admit(operationId: string, spec: { access: Access }, principal: Principal | null, koa: KoaContext, rateLimiter: RateLimiter): void {
  if (spec.access === 'platform' && principal?.kind !== 'PLATFORM') {
    throw new AppError('FORBIDDEN', 'This operation needs a platform token.');
  }
  if (spec.access === 'business' && principal?.kind !== 'BUSINESS') {
    throw new AppError('FORBIDDEN', 'This operation needs a business token.');
  }
  if (spec.access !== 'public' || operationId === 'createToken') {
    rateLimiter.hit(principal?.clientId ?? `ip:${koa.ip}`);
  }
}

/**
 * Mounts the document `api` (operations and request validators, see
 * compiledApi.ts) at `apiRoot` with one OperationSpec per operationId.
 * Requests are routed by a table built once (routing.ts). Per request, in
 * openapi-backend's order: route (404/405), bearer token (401), validation
 * (400), then access (403), rate limit (429), idempotency and the handler.
 */
export function mountApi(args: {
  api: CompiledApi;
  apiRoot: string;
  operations: Record<string, OperationSpec<never>>;
  services: Services;
  rateLimiter: RateLimiter;
  tokens: TokenVerifier;
}): MountedApi {
  const { api, services, rateLimiter, tokens } = args;
  const operations = args.operations as unknown as Record<string, OperationSpec<{ responses: object }>>;
  for (const op of api.operations) {
    const spec = operations[op.operationId];
    if (!spec) throw new Error(`no handler for operation ${op.operationId}`);
    if (op.security !== '[]' && op.security !== '[{"bearerAuth":[]}]') throw new Error(`operation ${op.operationId}: unsupported security ${op.security}`);
    if ((op.security === '[]') !== (spec.access === 'public')) {
      throw new Error(`operation ${op.operationId}: access "${spec.access}" disagrees with the document's security`);
    }
  }
  const routes = new RoutingTable(api.operations, args.apiRoot);

  const dispatch = async (koa: KoaContext, operation: ApiOperation, params: Record<string, string>): Promise<void> => {
    const { operationId } = operation;
    const spec = operations[operationId];
    const principal = operation.security !== '[]' ? await tokens.verify(koa.get('authorization') || undefined) : null;
    const body = (koa.request as unknown as { body?: unknown }).body;
    const query = validateRequest(api.validators(operationId), {
      path: params,
      query: koa.query,
      headers: koa.headers,
      body,
      contentType: koa.get('content-type'),
    });
    admit(operationId, spec, principal, koa, rateLimiter);
    rejectNulCharacters(body);
    rejectNulCharacters(query, '/query');

    const run = async (idempotency: KeyClaim | null): Promise<StoredResponse> => {
      const ctx: OperationContext<never> = {
        body: body as never,
        path: params as never,
        query: query as never,
        principal,
        db: services.db,
        idempotency,
        services,
        koa,
      };
      return (await spec.handle(ctx as never)) as StoredResponse;
    };

    const key = koa.get('idempotency-key');
    if (!spec.idempotent || !key) {
      send(koa, await run(null));
      return;
    }
    const { response, replayed } = await withIdempotency(
      services.db,
      {
        scope: principal?.businessId ?? principal?.clientId ?? 'anonymous',
        key,
        hash: requestHash(operationId, params, body),
        context: { request_id: String(koa.state.requestId), instance: koa.path },
      },
      run,
    );
    send(koa, response);
    if (replayed) koa.set('Idempotent-Replayed', 'true');
  };

  return {
    handle: async (koa) => {
      const match = routes.match(koa.method, koa.path);
      if (match === 404) throw new AppError('NOT_FOUND', `No operation at ${koa.method.toUpperCase()} ${koa.path}.`);
      if (match === 405) throw new AppError('METHOD_NOT_ALLOWED', `${koa.method.toUpperCase()} is not allowed on ${koa.path}.`);
      await dispatch(koa, match.operation, match.params);
    },
  };
}
