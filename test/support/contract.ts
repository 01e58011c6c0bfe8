/**
 * Contract check for every response a test receives, against the documents of the API
 * version that served it (its `X-API-Version`; openapi/released/<version>/, which main keeps
 * equal to what the sources serve): the operation is found
 * by method and path in that document, the status must be documented
 * for it (an undocumented status fails, unlike openapi-backend's own
 * validateResponse), the media type must be one it declares, the body must
 * validate against that media type's schema, and declared required response
 * headers must be present and valid. Responses to unrouted requests (404/405)
 * must be problem details. The service's pages for people (src/kernel/servicePages.ts:
 * the portal and the API reference) are outside the documents: their responses are
 * checked as pages (pageProblems), never matched to an operation nor counted in the
 * coverage; no other path is exempt.
 */
import { OpenAPIBackend, type Document } from 'openapi-backend';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createAjv, loadBundledDocument } from '../../src/http/apiBuild.js';
import { SUPPORTED_API_VERSIONS } from '../../src/http/versions.js';
import { isServicePage, PAGE_MEDIA_TYPES } from '../../src/kernel/servicePages.js';
import { RELEASED_OPENAPI } from '../../src/paths.js';

type Schema = Record<string, unknown>;
interface MediaType { schema?: Schema }
interface HeaderSpec { required?: boolean; schema?: Schema }
interface ResponseSpec { content?: Record<string, MediaType>; headers?: Record<string, HeaderSpec> }

const ajv = createAjv();
const compiled = new WeakMap<Schema, ReturnType<typeof ajv.compile>>();
function validate(schema: Schema, value: unknown): string | null {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  return fn(value) ? null : ajv.errorsText(fn.errors);
}

type Router = { name: 'closed-loop' | 'core'; backend: OpenAPIBackend };
/** The newest documents (the sources, bundled): the coverage gate counts their operations and responses. */
const routers: Router[] = [];
/** Each supported version's documents as released, by version. */
const versionRouters = new Map<string, Router[]>();
let problemSchema: Schema;

/** Both documents of `definitions`, dereferenced. */
async function loadRouters(definition: (name: 'closed-loop' | 'core') => Document): Promise<Router[]> {
  const loaded: Router[] = [];
  for (const [name, root] of [['closed-loop', '/cl/v1'], ['core', '/']] as const) {
    const backend = new OpenAPIBackend({ definition: definition(name), apiRoot: root, validate: false, quick: false });
    backend.validateDefinition = () => backend.document;
    await backend.init();
    loaded.push({ name, backend });
  }
  return loaded;
}

/** Loads and dereferences the bundled documents and every supported version's released ones (once). */
export async function loadContracts(): Promise<void> {
  if (routers.length) return;
  routers.push(...(await loadRouters((name) => loadBundledDocument(name) as Document)));
  for (const version of SUPPORTED_API_VERSIONS) {
    versionRouters.set(version, await loadRouters((name) => JSON.parse(readFileSync(path.join(RELEASED_OPENAPI, version, `${name}.json`), 'utf8')) as Document));
  }
  const components = routers[0].backend.definition.components as { schemas: Record<string, Schema> };
  problemSchema = components.schemas.Problem;
}

/**
 * `<document>#<operationId>` → `status` and `status code` keys seen by the tests (filled by
 * assertMatchesContract). Keyed by document too: both documents have a `createToken`.
 */
export const observed = new Map<string, Set<string>>();

/** The key under which `observed` records an operation. */
export const operationKey = (document: string, operationId: string): string => `${document}#${operationId}`;

/** The `code` enum of a problem schema (directly or through allOf), or [] when codes are not listed. */
function codesOf(schema: Schema | undefined): string[] {
  if (!schema) return [];
  const code = (schema.properties as Record<string, Schema> | undefined)?.code;
  const own = Array.isArray(code?.enum) ? (code.enum as string[]) : [];
  return [...own, ...((schema.allOf as Schema[] | undefined) ?? []).flatMap(codesOf)];
}

/** One response a document declares: for the coverage gate. */
export interface DocumentedResponse {
  document: 'closed-loop' | 'core';
  operationId: string;
  status: number;
  /** The problem code, for error responses that list their codes. */
  code?: string;
}

/**
 * Every (operationId, status) the documents declare and, for error responses, every
 * (operationId, status, code): the coverage gate requires a test to receive each.
 */
export function documentedResponses(): DocumentedResponse[] {
  return routers.flatMap(({ name, backend }) =>
    backend.getOperations().flatMap((op) =>
      Object.entries((op.responses ?? {}) as Record<string, ResponseSpec>).flatMap(([status, spec]) => {
        const base = { document: name, operationId: op.operationId ?? '', status: Number(status) };
        const codes = codesOf(spec.content?.['application/problem+json']?.schema);
        return [base, ...codes.map((code) => ({ ...base, code }))];
      }),
    ),
  );
}

/** The key under which `observed` records a response. */
export const coverageKey = (status: number, code?: string): string => (code ? `${status} ${code}` : String(status));

/** A response as received, for `assertMatchesContract`. */
export interface ObservedResponse {
  method: string;
  path: string;
  status: number;
  headers: Headers;
  body: unknown;
  /** False for responses that do not come from the service (e.g. the Prism mock): checked, not counted in the coverage. */
  coverage?: boolean;
}

/**
 * The operation of a request, as the service routes it (src/http/routing.ts): openapi-backend's
 * router, which also ignores a documented trailing slash (seed E4's `/payouts/`).
 */
function matchOperation(backend: OpenAPIBackend, method: string, path: string) {
  const found = backend.router.matchOperation({ method, path, headers: {}, query: {} }, false);
  if (found) return found;
  const bare = path.replace(/\/+$/, '');
  return backend.router.getOperations().find((op) => op.method === method && op.path.length > 1 && op.path.replace(/\/+$/, '') === bare);
}

/**
 * The `<document>#<operationId>` a request is routed to, or null when no documented
 * operation has that method and path (the service answers such a request 404 or 405).
 */
export function documentedOperation(method: string, path: string): string | null {
  const { name, backend } = path.startsWith('/cl/v1') ? routers[0] : routers[1];
  const operation = matchOperation(backend, method.toLowerCase(), path);
  return operation ? operationKey(name, operation.operationId ?? '') : null;
}

/**
 * How a response of one of the service's pages departs from what a page answers: 200 with a
 * page media type (HTML, a script, a style sheet) and a Content-Security-Policy that starts
 * from this origin only, or a problem (400, 404, 405: problem details); either with its
 * `X-Request-Id` and the `X-API-Version` it was served at, as every response of the service.
 */
function pageProblems(res: ObservedResponse, mediaType: string): string[] {
  const problems: string[] = [];
  for (const name of ['x-request-id', 'x-api-version']) if (!res.headers.get(name)) problems.push(`page answered without ${name}`);
  if (res.status === 200) {
    if (!PAGE_MEDIA_TYPES.includes(mediaType)) problems.push(`page answered ${mediaType}, not one of ${PAGE_MEDIA_TYPES.join(', ')}`);
    if (!/^default-src 'self'(;|$)/.test(res.headers.get('content-security-policy') ?? '')) problems.push("page answered without a Content-Security-Policy starting default-src 'self'");
    return problems;
  }
  if (![400, 404, 405].includes(res.status)) problems.push(`page answered ${res.status}`);
  if (mediaType !== 'application/problem+json') problems.push(`page answered ${res.status} as ${mediaType}`);
  const err = validate(problemSchema, res.body);
  if (err) problems.push(`problem body: ${err}`);
  return problems;
}

/** Throws an Error describing every way `res` departs from the documents (or, for one of the service's pages, from what a page answers). */
export function assertMatchesContract(res: ObservedResponse): void {
  const version = res.headers.get('x-api-version') ?? '';
  const where = `${res.method} ${res.path} → ${res.status} at ${version || 'no version'}`;
  const mediaType = (res.headers.get('content-type') ?? '').split(';')[0].trim();
  if (isServicePage(res.path)) {
    const problems = pageProblems(res, mediaType);
    if (problems.length) throw new Error(`Response of a service page is not a page's (${where}):\n  - ${problems.join('\n  - ')}\n  body: ${JSON.stringify(res.body)?.slice(0, 500)}`);
    return;
  }
  const problems: string[] = [];
  // A response that is not the service's (the mock, serving the sources) is checked against the sources.
  const served = res.coverage === false ? routers : (versionRouters.get(version) ?? routers);
  const { backend } = res.path.startsWith('/cl/v1') ? served[0] : served[1];
  const operation = matchOperation(backend, res.method.toLowerCase(), res.path);
  if (!operation) {
    if (![404, 405].includes(res.status)) problems.push(`unrouted request answered ${res.status}`);
    if (mediaType !== 'application/problem+json') problems.push(`unrouted request answered ${mediaType}`);
    const err = validate(problemSchema, res.body);
    if (err) problems.push(`problem body: ${err}`);
  } else {
    const key = res.coverage !== false ? documentedOperation(res.method, res.path) : null;
    if (key) {
      const seen = observed.get(key) ?? new Set<string>();
      observed.set(key, seen.add(coverageKey(res.status)));
      const code = (res.body as { code?: unknown } | null)?.code;
      if (res.status >= 400 && typeof code === 'string') seen.add(coverageKey(res.status, code));
    }
    const spec = operation.responses?.[String(res.status)] as ResponseSpec | undefined;
    if (!spec) {
      problems.push(`status ${res.status} is not documented for ${operation.operationId} (documented: ${Object.keys(operation.responses ?? {}).join(', ')})`);
    } else {
      const content = spec.content ?? {};
      if (Object.keys(content).length && !content[mediaType]) {
        problems.push(`media type "${mediaType}" is not documented (documented: ${Object.keys(content).join(', ')})`);
      } else if (content[mediaType]?.schema) {
        const err = validate(content[mediaType].schema!, res.body);
        if (err) problems.push(`body does not match the ${operation.operationId} ${res.status} schema: ${err}`);
      }
      for (const [name, header] of Object.entries(spec.headers ?? {})) {
        const value = res.headers.get(name);
        if (value === null) {
          if (header.required) problems.push(`required header ${name} is missing`);
          continue;
        }
        const schema = header.schema ?? {};
        const typed = schema.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
        const err = validate(schema, typed);
        if (err) problems.push(`header ${name}: ${err}`);
      }
    }
  }
  if (problems.length) throw new Error(`Response breaks the contract (${where}):\n  - ${problems.join('\n  - ')}\n  body: ${JSON.stringify(res.body)?.slice(0, 500)}`);
}
