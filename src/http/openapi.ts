/**
 * One API per bundled document (generated/openapi/*.json): openapi-backend
 * reads the document and validates requests with Ajv (JSON Schema 2020-12,
 * formats on); a routing table built once routes each request to its
 * operationId; this module checks the bearer token, applies access rules,
 * rate limits and idempotency, and calls the typed handler from the OperationMap.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Context as KoaContext } from 'koa';
import { OpenAPIBackend, type Document, type Operation } from 'openapi-backend';
import { AppError } from '../errors.js';
import type { TokenVerifier } from './auth.js';
import { requestHash, withIdempotency, type KeyClaim, type StoredResponse } from './idempotency.js';
import type { Access, OperationContext, OperationSpec, Principal, Services } from './operation.js';
import type { RateLimiter } from './rateLimit.js';
import { RoutingTable } from './routing.js';
import { rejectNulCharacters, validateRequest } from './validation.js';

const GENERATED = path.resolve(import.meta.dirname, '../../generated/openapi');

/** Reads a bundled document by name (`closed-loop` or `core`). */
export function loadBundledDocument(name: 'closed-loop' | 'core'): Document {
  return JSON.parse(readFileSync(path.join(GENERATED, `${name}.json`), 'utf8')) as Document;
}

/** Ajv for OpenAPI 3.1 schemas (JSON Schema 2020-12) with string formats. */
export function createAjv(opts: Record<string, unknown> = {}): Ajv2020.default {
  const Ctor = (Ajv2020 as unknown as { default: typeof Ajv2020.default }).default ?? Ajv2020;
  const ajv = new Ctor({ strict: false, allErrors: true, ...opts });
  (addFormats as unknown as (a: unknown) => void)(ajv);
  return ajv;
}

export interface MountedApi {
  /** Serves a Koa request whose path belongs to this document. */
  handle(koa: KoaContext): Promise<void>;
  backend: OpenAPIBackend;
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
 * Mounts `document` at `apiRoot` with one OperationSpec per operationId.
 * openapi-backend reads and dereferences the document and compiles each
 * operation's request validators (on first use); requests are routed by a
 * table built once (routing.ts). Per request, in openapi-backend's order:
 * route (404/405), bearer token (401), validation (400), then access (403),
 * rate limit (429), idempotency and the handler.
 */
export async function mountApi(args: {
  document: Document;
  apiRoot: string;
  operations: Record<string, OperationSpec<never>>;
  services: Services;
  rateLimiter: RateLimiter;
  tokens: TokenVerifier;
}): Promise<MountedApi> {
  const { services, rateLimiter, tokens } = args;
  const operations = args.operations as unknown as Record<string, OperationSpec<{ responses: object }>>;
  const ajvs = new Map<string, Ajv2020.default>();
  const backend = new OpenAPIBackend({
    definition: args.document,
    apiRoot: args.apiRoot,
    strict: true,
    quick: true, // no validator is compiled up front: each operation's on its first request
    validate: true,
    coerceTypes: true,
    // One Ajv per set of options (two in all) instead of one per validator.
    customizeAjv: (_ajv, ajvOpts) => {
      const key = JSON.stringify(ajvOpts);
      if (!ajvs.has(key)) ajvs.set(key, createAjv(ajvOpts as Record<string, unknown>));
      return ajvs.get(key) as never;
    },
  });
  // openapi-backend checks documents against the OpenAPI 3.0 meta-schema only; our
  // documents are 3.1 and are linted by redocly and spectral in `npm test` instead.
  backend.validateDefinition = () => backend.document;
  await backend.init();

  const documented = backend.getOperations();
  for (const op of documented) {
    const spec = operations[op.operationId ?? ''];
    if (!spec) throw new Error(`no handler for operation ${op.operationId}`);
    const security = JSON.stringify(op.security ?? []);
    if (security !== '[]' && security !== '[{"bearerAuth":[]}]') throw new Error(`operation ${op.operationId}: unsupported security ${security}`);
    if ((security === '[]') !== (spec.access === 'public')) {
      throw new Error(`operation ${op.operationId}: access "${spec.access}" disagrees with the document's security`);
    }
  }
  const routes = new RoutingTable(documented, args.apiRoot);

  const dispatch = async (koa: KoaContext, operation: Operation, params: Record<string, string>): Promise<void> => {
    const operationId = operation.operationId!;
    const spec = operations[operationId];
    const principal = operation.security?.length ? await tokens.verify(koa.get('authorization') || undefined) : null;
    const body = (koa.request as unknown as { body?: unknown }).body;
    const query = validateRequest(backend, operation, {
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
    backend,
    handle: async (koa) => {
      const match = routes.match(koa.method, koa.path);
      if (match === 404) throw new AppError('NOT_FOUND', `No operation at ${koa.method.toUpperCase()} ${koa.path}.`);
      if (match === 405) throw new AppError('METHOD_NOT_ALLOWED', `${koa.method.toUpperCase()} is not allowed on ${koa.path}.`);
      await dispatch(koa, match.operation, match.params);
    },
  };
}
