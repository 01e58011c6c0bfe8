/**
 * One openapi-backend instance per bundled document (generated/openapi/*.json).
 * openapi-backend routes each request to its operationId, checks the bearer
 * token and validates the request with Ajv (JSON Schema 2020-12, formats on);
 * this module then applies access rules, rate limits and idempotency, and calls
 * the typed handler from the OperationMap.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ErrorObject } from 'ajv';
import type { Context as KoaContext } from 'koa';
import { OpenAPIBackend, type Context as OpenApiContext, type Document } from 'openapi-backend';
import { AppError, invalidField, toProblem, type FieldError } from '../errors.js';
import { verifyBearer } from './auth.js';
import { requestHash, withIdempotency, type StoredResponse } from './idempotency.js';
import type { OperationContext, OperationSpec, Principal, Services } from './operation.js';
import type { RateLimiter } from './rateLimit.js';
import { SIGNATURE_SCHEMES, signatureVerifier } from './signatures.js';

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

/** JSON Pointer into the request for an Ajv error from openapi-backend's request schema. */
function toFieldError(err: ErrorObject): FieldError {
  const [, where = '', ...rest] = err.instancePath.split('/');
  let pointer = rest.length ? `/${rest.join('/')}` : '';
  const params = err.params as Record<string, unknown>;
  if (err.keyword === 'required') pointer += `/${String(params.missingProperty)}`;
  if (err.keyword === 'additionalProperties') pointer += `/${String(params.additionalProperty)}`;
  const prefix = where === 'requestBody' ? '' : where === 'headers' ? '/header' : `/${where}`;
  const detail = err.keyword === 'additionalProperties' ? 'is not allowed' : (err.message ?? 'is invalid');
  return { pointer: `${prefix}${pointer}` || '/', detail };
}

/** Throws 400 VALIDATION_ERROR when a string anywhere in `value` holds a NUL character (PostgreSQL rejects them). */
function rejectNulCharacters(value: unknown, pointer = ''): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) throw invalidField(pointer || '/', 'must not contain NUL characters');
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) rejectNulCharacters(v, `${pointer}/${k}`);
  }
}

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * Throws 400 UNSUPPORTED_MEDIA_TYPE when the request has a body whose media type the
 * operation does not declare (e.g. a form body anywhere but the token request).
 */
function rejectUndeclaredMediaType(c: OpenApiContext, koa: KoaContext): void {
  const declared = Object.keys((c.operation.requestBody as { content?: object } | undefined)?.content ?? {});
  const hasBody = (koa.request.length ?? 0) > 0 || koa.get('transfer-encoding') !== '';
  if (declared.length && hasBody && !koa.is(declared)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `The request body must be sent as ${declared.join(' or ')}.`);
  }
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

/**
 * Builds and initialises the backend for `document` (mounted at `apiRoot`)
 * with one OperationSpec per operationId.
 */
export async function mountApi(args: {
  document: Document;
  apiRoot: string;
  operations: Record<string, OperationSpec<never>>;
  services: Services;
  rateLimiter: RateLimiter;
}): Promise<MountedApi> {
  const { document, services, rateLimiter } = args;
  const operations = args.operations as unknown as Record<string, OperationSpec<{ responses: object }>>;
  const backend = new OpenAPIBackend({
    definition: document,
    apiRoot: args.apiRoot,
    strict: true,
    // Compile each operation's request validators when first used, and never the response
    // validators the server does not use: start-up drops from seconds (tens under load) to
    // milliseconds, which every test that starts an extra instance feels.
    quick: true,
    validate: true,
    coerceTypes: true,
    customizeAjv: (_ajv, ajvOpts) => createAjv(ajvOpts as Record<string, unknown>) as never,
  });
  // openapi-backend checks documents against the OpenAPI 3.0 meta-schema only; our
  // documents are 3.1 and are linted by redocly and spectral in `npm test` instead.
  backend.validateDefinition = () => backend.document;

  // Both schemes carry the same bearer token (oauth2ClientCredentials only says where
  // it comes from): verify it once per request, whichever scheme asks first.
  const verified = new WeakMap<object, Promise<Principal>>();
  const principalOf = (c: OpenApiContext): Promise<Principal> => {
    let principal = verified.get(c.request);
    if (!principal) {
      principal = verifyBearer(c.request.headers.authorization as string | undefined, services.jwtKey);
      principal.catch(() => undefined); // rejections are read through the security results
      verified.set(c.request, principal);
    }
    return principal;
  };
  backend.registerSecurityHandler('bearerAuth', principalOf);
  backend.registerSecurityHandler('oauth2ClientCredentials', principalOf);
  // Provider callbacks carry an HMAC signature instead of a token (./signatures.ts).
  const declared = (document.components?.securitySchemes ?? {}) as Record<string, unknown>;
  for (const scheme of Object.keys(SIGNATURE_SCHEMES).filter((name) => name in declared)) {
    const verify = signatureVerifier(scheme, services);
    backend.registerSecurityHandler(scheme, (_c: OpenApiContext, koa: KoaContext) => verify(koa));
  }
  backend.register({
    notFound: (c: OpenApiContext) => {
      throw new AppError('NOT_FOUND', `No operation at ${c.request.method.toUpperCase()} ${c.request.path}.`);
    },
    methodNotAllowed: (c: OpenApiContext) => {
      const allowed = HTTP_METHODS.filter((method) =>
        backend.router.matchOperation({ method, path: c.request.path, headers: {}, query: {} }),
      ).map((m) => m.toUpperCase());
      throw new AppError('METHOD_NOT_ALLOWED', `${c.request.method.toUpperCase()} is not allowed on ${c.request.path}; use ${allowed.join(', ')}.`, {
        headers: { Allow: allowed.join(', ') },
      });
    },
    unauthorizedHandler: (c: OpenApiContext) => {
      const failure = Object.values(c.security ?? {})
        .map((result) => (result as { error?: unknown } | undefined)?.error)
        .find((error) => error instanceof AppError);
      throw failure instanceof AppError
        ? failure
        : new AppError('UNAUTHORIZED', 'A valid bearer token is required.', { headers: { 'WWW-Authenticate': 'Bearer realm="wallet-service"' } });
    },
    validationFail: (c: OpenApiContext) => {
      const errors = (c.validation.errors ?? []).map(toFieldError);
      throw new AppError('VALIDATION_ERROR', `The request has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.`, {
        errors,
      });
    },
  });

  for (const [operationId, spec] of Object.entries(operations)) {
    backend.register(operationId, async (c: OpenApiContext, koa: KoaContext) => {
      const principal = (c.security?.bearerAuth as Principal | undefined) ?? null;
      koa.state.operationId = operationId;
      koa.state.ledgerType = spec.ledgerType;
      koa.state.clientId = principal?.clientId;
      if (spec.access === 'platform' && principal?.kind !== 'PLATFORM') {
        throw new AppError('FORBIDDEN', 'This operation needs a platform token.');
      }
      if (spec.access === 'business' && principal?.kind !== 'BUSINESS') {
        throw new AppError('FORBIDDEN', 'This operation needs a business token.');
      }
      if (spec.access !== 'public' || operationId === 'createToken') {
        koa.set(rateLimiter.hit(principal?.clientId ?? `ip:${koa.ip}`));
      }
      rejectUndeclaredMediaType(c, koa);
      rejectNulCharacters(c.request.requestBody);
      rejectNulCharacters(c.request.query, '/query');

      const run = async (db: Services['db']): Promise<StoredResponse> => {
        const ctx: OperationContext<never> = {
          body: c.request.requestBody as never,
          path: c.request.params as never,
          query: c.request.query as never,
          principal,
          db,
          services,
          koa,
        };
        return (await spec.handle(ctx as never)) as StoredResponse;
      };

      const key = koa.get('idempotency-key');
      if (!spec.idempotent || !key) {
        send(koa, await run(services.db));
        return;
      }
      const requestId = String(koa.state.requestId);
      const { response, replayed } = await withIdempotency(
        services.db,
        {
          scope: principal?.businessId ?? principal?.clientId ?? 'anonymous',
          key,
          hash: requestHash(operationId, c.request.params, c.request.requestBody),
          toStored: (err) => ({
            status: err.status,
            body: toProblem(err, koa.path, requestId),
            contentType: 'application/problem+json',
          }),
        },
        run,
      );
      send(koa, response);
      if (replayed) koa.set('Idempotent-Replayed', 'true');
    });
  }

  await backend.init();
  for (const op of backend.getOperations()) {
    const spec = operations[op.operationId ?? ''];
    if (!spec) throw new Error(`no handler for operation ${op.operationId}`);
    const isPublic = Array.isArray(op.security) && op.security.length === 0;
    const requirements = op.security ?? [];
    const signed = requirements.length > 0 && requirements.every((requirement) => Object.keys(requirement).every((scheme) => scheme in SIGNATURE_SCHEMES));
    if (isPublic !== (spec.access === 'public') || signed !== (spec.access === 'signature')) {
      throw new Error(`operation ${op.operationId}: access "${spec.access}" disagrees with the document's security`);
    }
  }
  return {
    backend,
    handle: async (koa) => {
      await backend.handleRequest(
        {
          method: koa.method,
          path: koa.path,
          query: koa.query as Record<string, string | string[]>,
          headers: koa.headers as Record<string, string | string[]>,
          body: (koa.request as unknown as { body?: unknown }).body,
        },
        koa,
      );
    },
  };
}
