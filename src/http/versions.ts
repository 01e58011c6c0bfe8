/**
 * The API versions this service serves and the documents as each version serves them.
 *
 * `X-API-Version` (seed, "Versioning") takes one of SUPPORTED_API_VERSIONS (the list and
 * the version changes between them are in src/kernel/versioning/). What tells a client which
 * documents it was built against is `info.version`: `<release>+<version>`, the release of
 * the documents (semver, the same for both documents, bumped by `npm run api:release`)
 * with the API version as semver build metadata, e.g. `1.0.0+v2`.
 */

import { stringify } from 'yaml';
import { goneResponse, type Deprecation } from './deprecation.js';
import { SIGNATURE_SCHEMES } from './signatures.js';
import { API_VERSION_DEPRECATIONS, API_VERSIONING } from '../kernel/versioning/apiVersions.js';
import type { ApiVersioning } from '../kernel/versioning/versionChange.js';

export { API_VERSION_DEPRECATIONS, API_VERSIONING, DEFAULT_API_VERSION, isApiVersion, RECOMMENDED_API_VERSION, SUPPORTED_API_VERSIONS, type ApiVersion } from '../kernel/versioning/apiVersions.js';

/** `info.version` of a document served as `version`: the release with the version as build metadata. */
export function servedInfoVersion(release: string, version: string): string {
  return `${release.replace(/\+.*$/, '')}+${version}`;
}

/**
 * The bundled document `bundle` (generated/openapi/*.json, parsed: the newest version) as
 * `version` serves it: rewritten by the version changes made after `version`
 * (`opts.versioning`, the shipped API_VERSIONING unless a test build gives another), its
 * `info.version` servedInfoVersion, its `X-API-Version` parameter defaulting to `version`,
 * and marked deprecated when the version is (`opts.deprecations`). Throws when it has no
 * `info.version`.
 */
export function servedDocument<T extends { info: { version: string } }>(
  bundle: T,
  version: string,
  opts: { deprecations?: Partial<Record<string, Deprecation>>; versioning?: ApiVersioning } = {},
): T {
  if (typeof bundle.info?.version !== 'string') throw new Error('the document has no info.version');
  const { deprecations = API_VERSION_DEPRECATIONS as Partial<Record<string, Deprecation>>, versioning = API_VERSIONING } = opts;
  const shaped = versioning.document(bundle, version);
  const served = pinnedTo({ ...shaped, info: { ...shaped.info, version: servedInfoVersion(bundle.info.version, version) } }, version);
  const deprecation = deprecations[version];
  return deprecation ? deprecateAll(served, deprecation) : served;
}

/** The name of the version request header (the shared `ApiVersionParameter`). */
const VERSION_HEADER = 'x-api-version';

interface ParameterNode {
  name?: string;
  in?: string;
  schema?: object;
  example?: unknown;
}

/**
 * `doc` with its `X-API-Version` header parameters (components and operations) defaulting
 * to `version`, so that an SDK generated from the document sends the version it was
 * generated from. Served documents only: the source documents' request schemas have no
 * `default` (openapi-typescript would make the parameter required in the handlers' types).
 */
function pinnedTo<T>(doc: T, version: string): T {
  const copy = structuredClone(doc) as { components?: { parameters?: Record<string, ParameterNode> }; paths?: Record<string, Record<string, unknown>> };
  const operations = Object.values(copy.paths ?? {}).flatMap((item) => [item, ...METHODS.map((m) => item[m])]) as ({ parameters?: ParameterNode[] } | undefined)[];
  const parameters = [...Object.values(copy.components?.parameters ?? {}), ...operations.flatMap((op) => op?.parameters ?? [])];
  for (const p of parameters) {
    if (p.in !== 'header' || p.name?.toLowerCase() !== VERSION_HEADER) continue;
    p.schema = { ...p.schema, default: version };
    p.example = version;
  }
  return copy as T;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The header objects a deprecated version's success responses document. */
function deprecationHeaderObjects(deprecation: Deprecation): Record<string, object> {
  const headers: Record<string, object> = {
    Deprecation: { description: `This API version is deprecated since ${deprecation.at} (RFC 9745: \`@\` and the date in epoch seconds).`, required: true, schema: { type: 'string', pattern: '^@[0-9]+$', maxLength: 20 } },
    Link: { description: 'The changelog (`rel="deprecation"`, and `rel="sunset"` with a sunset).', required: true, schema: { type: 'string', maxLength: 300 } },
  };
  if (deprecation.sunset) {
    headers.Sunset = { description: `This API version may stop answering after ${deprecation.sunset} (RFC 8594, an HTTP-date).`, required: true, schema: { type: 'string', maxLength: 40 } };
  }
  return headers;
}

/**
 * `doc` with every operation deprecated at `deprecation`'s dates, its success responses
 * documenting the headers, and with a sunset its 410 GONE (goneResponse) after it.
 */
function deprecateAll<T>(doc: T, deprecation: Deprecation): T {
  const copy = structuredClone(doc) as { security?: unknown; paths?: Record<string, Record<string, { responses?: Record<string, { headers?: object; $ref?: string }> }>> };
  for (const item of Object.values(copy.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method] as Record<string, unknown> | undefined;
      if (!op || !isVersioned(op.security ?? copy.security)) continue;
      Object.assign(op, {
        deprecated: true,
        'x-deprecated-at': deprecation.at,
        ...(deprecation.sunset ? { 'x-sunset': deprecation.sunset } : {}),
        ...(deprecation.successor ? { 'x-successor': deprecation.successor } : {}),
      });
      const responses = (op.responses ??= {}) as Record<string, { headers?: object; $ref?: string }>;
      for (const [status, response] of Object.entries(responses)) {
        if (status.startsWith('2') && !response.$ref) response.headers = { ...response.headers, ...deprecationHeaderObjects(deprecation) };
      }
      if (deprecation.sunset) responses['410'] ??= goneResponse();
    }
  }
  return copy as T;
}

/**
 * Whether an operation with `security` (its requirements, the document's when it names none)
 * is versioned by its caller: one behind the bearer token. What needs no token (`[]`: the
 * token request, health, readiness, the documents, the changelog; the service's pages are
 * no operations and answer every version alike too, ./pages.ts) and what a provider calls with a signature answer every version alike, so a version's
 * deprecation and sunset do not reach them (src/http/openapi.ts mountApi does the same).
 */
export function isVersioned(security: unknown): boolean {
  const schemes = Array.isArray(security) ? security.flatMap((r) => Object.keys(r as object)) : [];
  return schemes.length > 0 && !schemes.every((scheme) => scheme in SIGNATURE_SCHEMES);
}

/**
 * The YAML form of a served document (`servedDocument`'s result, or a released one): the
 * same content, so that the JSON and YAML downloads of a version never differ.
 */
export function documentYaml(doc: unknown): string {
  return stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false });
}
