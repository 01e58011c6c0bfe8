/**
 * The API versions this service serves and the documents as each version serves them.
 *
 * `X-API-Version` (seed, "Versioning") takes one of SUPPORTED_API_VERSIONS; the first is
 * the default. Every version serves the same operations today; what tells a client which
 * documents it was built against is `info.version`: `<release>+<version>`, the release of
 * the documents (semver, the same for both documents, bumped by `npm run api:release`)
 * with the API version as semver build metadata, e.g. `1.0.0+v2`.
 */

import { stringify } from 'yaml';
import { goneResponse, type Deprecation } from './deprecation.js';

/** Values of `X-API-Version`; the first is the default. */
export const SUPPORTED_API_VERSIONS = ['v1', 'v2', 'v3'] as const;

/** One of SUPPORTED_API_VERSIONS. */
export type ApiVersion = (typeof SUPPORTED_API_VERSIONS)[number];

/**
 * The deprecated API versions, the one place that says which, until when and what to move
 * to: e.g. `v1: { at: '2027-01-15', sunset: '2027-07-15', successor: 'v2' }`. Every response
 * to a request of a deprecated version carries the deprecation headers (./deprecation.ts),
 * and its documents mark every operation deprecated with those dates; from the sunset its
 * requests are answered 410 GONE, which its documents give every operation. None is
 * deprecated today.
 */
export const API_VERSION_DEPRECATIONS: Partial<Record<ApiVersion, Deprecation>> = {};

/** The default version: the one a request without `X-API-Version` uses. */
export const DEFAULT_API_VERSION: ApiVersion = SUPPORTED_API_VERSIONS[0];

/** Whether `value` names a supported version. */
export function isApiVersion(value: string): value is ApiVersion {
  return (SUPPORTED_API_VERSIONS as readonly string[]).includes(value);
}

/** `info.version` of a document served as `version`: the release with the version as build metadata. */
export function servedInfoVersion(release: string, version: ApiVersion): string {
  return `${release.replace(/\+.*$/, '')}+${version}`;
}

/**
 * The bundled document `bundle` (generated/openapi/*.json, parsed) as `version` serves it:
 * a copy whose `info.version` is servedInfoVersion. Throws when it has no `info.version`.
 */
export function servedDocument<T extends { info: { version: string } }>(
  bundle: T,
  version: ApiVersion,
  deprecations: Partial<Record<ApiVersion, Deprecation>> = API_VERSION_DEPRECATIONS,
): T {
  if (typeof bundle.info?.version !== 'string') throw new Error('the document has no info.version');
  const served = pinnedTo({ ...bundle, info: { ...bundle.info, version: servedInfoVersion(bundle.info.version, version) } }, version);
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
function pinnedTo<T>(doc: T, version: ApiVersion): T {
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
  const copy = structuredClone(doc) as { paths?: Record<string, Record<string, { responses?: Record<string, { headers?: object; $ref?: string }> }>> };
  for (const item of Object.values(copy.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method] as Record<string, unknown> | undefined;
      if (!op) continue;
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
 * The YAML form of a served document (`servedDocument`'s result, or a released one): the
 * same content, so that the JSON and YAML downloads of a version never differ.
 */
export function documentYaml(doc: unknown): string {
  return stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false });
}
