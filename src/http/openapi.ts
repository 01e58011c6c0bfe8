/**
 * One API per bundled document (generated/openapi/*.json): its operations and
 * openapi-backend's request validators (compiledApi.ts: precompiled at build
 * time, or built in process); a routing table built once routes each request
 * to its operationId; this module checks the bearer token or the provider's
 * signature, applies access rules and rate limits, validates, handles
 * idempotency and calls the typed handler from the OperationMap.
 */
import type { Context as KoaContext } from 'koa';
import type { Knex } from 'knex';
import { AppError } from '../kernel/errors.js';
import { rejectUndeclaredMediaType, send } from './exchange.js';
import { withFailoverRetries } from '../db/failover.js';
import { isPermission, PERMISSION_MARKERS, type Permission } from '../kernel/permissions.js';
import { admit, authenticateCounted, checkCsrf, SAFE_METHODS, withPermissions } from './admission.js';
import type { TokenVerifier } from './auth.js';
import type { ApiOperation, CompiledApi } from './apiTypes.js';
import { keyedTransaction, requestHash, withIdempotency, type KeyClaim, type StoredResponse } from '../kernel/idempotency/idempotency.js';
import type { Access, OperationContext, OperationSpec } from './operation.js';
import { SESSION_COOKIE, type Principal, type Services, type SessionCredential } from '../kernel/services.js';
import type { RateLimiter } from './rateLimit.js';
import { RoutingTable } from './routing.js';
import { requireRecentCodeForAmount } from './reauthentication.js';
import { SIGNATURE_SCHEMES, signatureVerifier } from './signatures.js';
import { rejectIllFormedStrings, validateRequest } from './validation.js';
import { deprecationHeaders, goneError, requestDeprecation, sunsetPassed, type Deprecation } from './deprecation.js';
import { API_VERSION_DEPRECATIONS, API_VERSIONING, isVersioned, type ApiVersion } from './versions.js';
import type { ApiVersioning } from '../kernel/versioning/versionChange.js';

export interface MountedApi {
  /** Serves a Koa request whose path belongs to this document. */
  handle(koa: KoaContext): Promise<void>;
}

/** How an operation's caller is identified, from its document security (`cookie`: a portal session's cookie is an alternative to the token). */
type Security = { kind: 'public' } | { kind: 'bearer'; cookie: boolean } | { kind: 'signature'; verify: (koa: KoaContext) => Promise<unknown> };

/** The security schemes that carry the bearer token, and the portal session's cookie. */
const TOKEN_SCHEMES = ['bearerAuth', 'oauth2ClientCredentials'];
const SESSION_SCHEME = 'sessionCookie';

/**
 * The security of `op`, checked against its spec's access at start-up: `[]` is
 * public; requirements naming only signature schemes (./signatures.ts) are a
 * provider's signature; anything else is the bearer token (`bearerAuth` or
 * `oauth2ClientCredentials`: both carry the same token), or with `sessionCookie` also a
 * portal user's session cookie. Throws on a mismatch.
 */
function securityOf(op: ApiOperation, spec: { access: Access }, services: Services): Security {
  const requirements = JSON.parse(op.security) as Record<string, unknown>[];
  const schemes = requirements.flatMap((r) => Object.keys(r));
  const signed = schemes.length > 0 && schemes.every((scheme) => scheme in SIGNATURE_SCHEMES);
  const isPublic = requirements.length === 0;
  if (isPublic !== (spec.access === 'public') || signed !== (spec.access === 'signature')) {
    throw new Error(`operation ${op.operationId}: access "${spec.access}" disagrees with the document's security`);
  }
  const marker = { public: 'none', signature: 'signature', platform: 'platform' }[spec.access as string];
  if (marker ? op.permission !== marker : !isPermission(op.permission)) {
    throw new Error(`operation ${op.operationId}: x-permission "${op.permission}" disagrees with access "${spec.access}" (${PERMISSION_MARKERS.join(', ')} or a permission)`);
  }
  if (!isPublic && !signed && !schemes.every((s) => TOKEN_SCHEMES.includes(s) || s === SESSION_SCHEME)) {
    throw new Error(`operation ${op.operationId}: unsupported security ${op.security}`);
  }
  if (isPublic) return { kind: 'public' };
  if (!signed) return { kind: 'bearer', cookie: schemes.includes(SESSION_SCHEME) };
  const verifiers = schemes.map((scheme) => signatureVerifier(scheme, services));
  return {
    kind: 'signature',
    // Any one requirement suffices (OpenAPI: alternatives); the first failure is reported.
    verify: async (koa) => {
      let failure: unknown;
      for (const verify of verifiers) {
        try {
          return await verify(koa);
        } catch (err) {
          failure ??= err;
        }
      }
      throw failure;
    },
  };
}

/**
 * Mounts the document `api` (operations and request validators, see
 * compiledApi.ts) at `apiRoot` with one OperationSpec per operationId.
 * Requests are routed by a table built once (routing.ts). Per request: route
 * (404, 405 with `Allow`), bearer token, session cookie (with its CSRF token on a
 * state-changing request: else 403) or signature (401, or 429 past the
 * address's limit), access (403), rate limit (429), media type and validation (400), a large
 * movement's re-authentication (403, ./reauthentication.ts), then idempotency and the handler.
 * A deprecated operation, a request sending a deprecated parameter or one of a deprecated
 * API version is answered with the deprecation headers (./deprecation.ts); past its sunset,
 * the operation or version answers 410 GONE before the token is looked at. The
 * request's version (`koa.state.apiVersion`: the header's; without one, an authenticated
 * business's default version, `pinnedVersion`, once the token is checked) is applied at this edge: the body is brought up
 * to the newest shape before validation, a success body down to the version after the
 * handler (src/kernel/versioning/). A read, or a write with an Idempotency-Key, that meets an
 * unreachable database is run again for up to `failoverWaitMs` (src/db/failover.ts).
 */
export function mountApi(args: {
  api: CompiledApi;
  apiRoot: string;
  operations: Record<string, OperationSpec<never>>;
  services: Services;
  rateLimiter: RateLimiter;
  tokens: TokenVerifier;
  /** The deprecated API versions (API_VERSION_DEPRECATIONS unless a test gives others). */
  versionDeprecations?: Partial<Record<ApiVersion, Deprecation>>;
  /** The clock sunsets are compared with, in ms since the epoch (Date.now unless a test gives another). */
  now?: () => number;
  /** The versions and version changes (API_VERSIONING unless a test build gives others). */
  versioning?: ApiVersioning;
  /** A business's default API version, for its requests without `X-API-Version` (none: the default version). */
  pinnedVersion?: (businessId: string) => Promise<ApiVersion>;
  /** How long a read or keyed write waits for an unreachable database (DB_FAILOVER_WAIT_MS; none: not at all). */
  failoverWaitMs?: number;
  /**
   * The current permissions of the API client a valid token names, or null when it is revoked
   * (401): read per request, so that a revoked or narrowed key takes effect within the
   * lookup's own bound, not the token's lifetime (none: every client may do all).
   */
  clientPermissions?: (clientId: string) => Promise<readonly Permission[] | null>;
  /**
   * The principal of a portal session cookie's value (401 when it has ended), for operations
   * whose security names `sessionCookie` called without an `Authorization` header (none:
   * cookies are not looked at).
   */
  sessionPrincipal?: (cookie: string) => Promise<SessionCredential>;
}): MountedApi {
  const { api, services, rateLimiter, tokens } = args;
  const versioning = args.versioning ?? API_VERSIONING;
  const versionDeprecations = args.versionDeprecations ?? API_VERSION_DEPRECATIONS;
  const now = args.now ?? Date.now;
  const operations = args.operations as unknown as Record<string, OperationSpec<{ responses: object }>>;
  const security = new Map<string, Security>();
  /** The operations behind the token, which a version's deprecation and sunset reach (isVersioned). */
  const versioned = new Set<string>();
  for (const op of api.operations) {
    const spec = operations[op.operationId];
    if (!spec) throw new Error(`no handler for operation ${op.operationId}`);
    security.set(op.operationId, securityOf(op, spec, services));
    if (isVersioned(JSON.parse(op.security))) versioned.add(op.operationId);
  }
  const routes = new RoutingTable(api.operations, args.apiRoot);

  const dispatch = async (koa: KoaContext, operation: ApiOperation, params: Record<string, string>): Promise<void> => {
    const { operationId } = operation;
    const spec = operations[operationId];
    koa.state.operationId = operationId;
    const secured = security.get(operationId)!;
    // The deprecation headers of the request at `at`, and (`checkSunset`) its version's sunset.
    // What needs no token (token, health, readiness, documents, changelog) and
    // what a provider calls with a signature answer every version alike: neither reaches them.
    const applyVersion = (at: ApiVersion, checkSunset: boolean): void => {
      koa.state.apiVersion = at;
      koa.set('X-API-Version', at);
      const versionDeprecation = versioned.has(operationId) ? versionDeprecations[at] : undefined;
      const deprecation = requestDeprecation(operation, { query: koa.query, headers: koa.headers }, versionDeprecation);
      for (const name of ['Deprecation', 'Sunset', 'Link']) koa.remove(name);
      if (deprecation) koa.set(deprecationHeaders(deprecation));
      if (checkSunset && sunsetPassed(versionDeprecation, now())) throw goneError(`API version ${at}`, versionDeprecation!);
    };
    // Past its sunset, before the token: what is gone is gone for everyone.
    if (sunsetPassed(operation.deprecation, now())) {
      koa.set(deprecationHeaders(operation.deprecation!));
      throw goneError(`${operation.method.toUpperCase()} ${args.apiRoot.replace(/\/$/, '')}${operation.path}`, operation.deprecation!);
    }
    // Set first, so that an error response carries them too. A version the header names is
    // judged now; without the header, the version is the business's, known once the token is.
    const requested = koa.state.apiVersionRequested === true;
    applyVersion(koa.state.apiVersion as ApiVersion, requested);
    let principal: Principal | null = null;
    const cookie = secured.kind === 'bearer' && secured.cookie && args.sessionPrincipal && !koa.get('authorization') ? koa.cookies.get(SESSION_COOKIE) : undefined;
    if (cookie) {
      const credential = await authenticateCounted(koa, rateLimiter, false, () => args.sessionPrincipal!(cookie));
      checkCsrf(koa, credential.csrfTokenHash);
      principal = credential.principal;
    } else if (secured.kind === 'bearer') {
      principal = await authenticateCounted(koa, rateLimiter, false, async () => withPermissions(await tokens.verify(koa.get('authorization') || undefined), args.clientPermissions));
    } else if (secured.kind === 'signature') {
      await authenticateCounted(koa, rateLimiter, true, () => secured.verify(koa));
    }
    koa.state.clientId = principal?.clientId;
    // Who called and what the request named, for the audit trail (./auditTrail.ts).
    koa.state.principal = principal;
    koa.state.pathParams = params;
    koa.state.userId = principal?.userId;
    // Without `X-API-Version`, a business's request uses the business's default version; a
    // business pinned to a version past its sunset is answered 410 naming the successor, never
    // moved to another version unasked.
    if (!requested) {
      const pinned = principal?.businessId && args.pinnedVersion ? await args.pinnedVersion(principal.businessId) : (koa.state.apiVersion as ApiVersion);
      applyVersion(pinned, true);
    }
    const version = koa.state.apiVersion as ApiVersion;
    await admit(spec, operation, principal, koa, rateLimiter);
    rejectUndeclaredMediaType(operation, koa);
    // A request is validated against its own version's document, then brought up to the
    // newest shape: handlers see that shape only.
    const sent = (koa.request as unknown as { body?: unknown }).body;
    const query = validateRequest(api.validators(operationId, version), {
      path: params,
      query: koa.query,
      headers: koa.headers,
      body: sent,
      contentType: koa.get('content-type'),
    });
    rejectIllFormedStrings(sent);
    const body = sent === undefined ? sent : versioning.requestUp(operationId, sent, version);
    rejectIllFormedStrings(query, '/query');
    // A large movement through a session needs a recent code too, judged on the validated body.
    if (operation.reauthenticationAmount) requireRecentCodeForAmount(principal, operation.reauthenticationAmount, body, services.config.portalReauthenticationAmount);

    const run = async (idempotency: KeyClaim | null, db: Knex = services.db): Promise<StoredResponse> => {
      const ctx: OperationContext<never> = {
        body: body as never,
        path: params as never,
        query: query as never,
        principal,
        db,
        idempotency,
        services,
        koa,
        apiVersion: version,
      };
      return (await spec.handle(ctx as never)) as StoredResponse;
    };

    // A success body is brought down to the request's version; a replay stored in the
    // newest shape is brought down the same way.
    const answer = (res: StoredResponse): StoredResponse =>
      res.status < 300 && res.body !== null && typeof res.body === 'object'
        ? { ...res, status: versioning.statusDown(operationId, res.status, version), body: versioning.responseDown(operationId, res.body, version) }
        : res;
    const key = koa.get('idempotency-key');
    if (!spec.idempotent || !key) {
      send(koa, answer(await run(null)));
      return;
    }
    const { response, replayed } = await withIdempotency(
      services.db,
      {
        scope: principal?.businessId ?? principal?.clientId ?? 'anonymous',
        key,
        // The request as its client sent it, under the operation's first name: a key kept
        // before a version change matches the same client's retry after it.
        hash: requestHash(versioning.originalOperationId(operationId), params, sent),
        context: { request_id: String(koa.state.requestId), instance: koa.path },
      },
      // A create runs in one transaction with its key; a movement's ledger call takes the key itself.
      spec.idempotent === 'transaction'
        ? async (claim) =>
            keyedTransaction(services.db, claim, principal?.businessId ?? null, (trx) => run(null, trx), spec.sealReplay ? services.keys.replays : undefined)
        : run,
    );
    send(koa, answer(response));
    if (replayed) koa.set('Idempotent-Replayed', 'true');
  };

  return {
    handle: async (koa) => {
      const match = routes.match(koa.method, koa.path);
      if (match === 404) throw new AppError('NOT_FOUND', `No operation at ${koa.method.toUpperCase()} ${koa.path}.`);
      if (Array.isArray(match)) {
        const allowed = match.map((m) => m.toUpperCase());
        throw new AppError('METHOD_NOT_ALLOWED', `${koa.method.toUpperCase()} is not allowed on ${koa.path}; use ${allowed.join(', ')}.`, {
          headers: { Allow: allowed.join(', ') },
        });
      }
      // A read, or a write whose Idempotency-Key makes a second run replay the first, is sent
      // again while the database cannot be reached (a failover, src/db/failover.ts).
      const safe = SAFE_METHODS.has(koa.method) || (Boolean(operations[match.operation.operationId]?.idempotent) && koa.get('idempotency-key') !== '');
      await withFailoverRetries(safe, args.failoverWaitMs ?? 0, () => dispatch(koa, match.operation, match.params));
    },
  };
}
