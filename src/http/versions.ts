/**
 * The API versions this service serves and the documents as each version serves them.
 *
 * `X-API-Version` (seed, "Versioning") takes one of SUPPORTED_API_VERSIONS; the first is
 * the default. Every version serves the same operations today; what tells a client which
 * documents it was built against is `info.version`: `<release>+<version>`, the release of
 * the documents (semver, the same for both documents, bumped by `npm run api:release`)
 * with the API version as semver build metadata, e.g. `1.0.0+v2`.
 */

import type { Deprecation } from './deprecation.js';

/** Values of `X-API-Version`; the first is the default. */
export const SUPPORTED_API_VERSIONS = ['v1', 'v2', 'v3'] as const;

/** One of SUPPORTED_API_VERSIONS. */
export type ApiVersion = (typeof SUPPORTED_API_VERSIONS)[number];

/**
 * The deprecated API versions, the one place that says which and until when: e.g.
 * `v1: { at: '2027-01-15', sunset: '2027-07-15' }`. Every response to a request of a
 * deprecated version carries the deprecation headers (./deprecation.ts), and its
 * documents mark every operation deprecated with those dates. None is deprecated today.
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
  const served = { ...bundle, info: { ...bundle.info, version: servedInfoVersion(bundle.info.version, version) } };
  const deprecation = deprecations[version];
  return deprecation ? deprecateAll(served, deprecation) : served;
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

/** `doc` with every operation deprecated at `deprecation`'s dates, its success responses documenting the headers. */
function deprecateAll<T>(doc: T, deprecation: Deprecation): T {
  const copy = structuredClone(doc) as { paths?: Record<string, Record<string, { responses?: Record<string, { headers?: object; $ref?: string }> }>> };
  for (const item of Object.values(copy.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method] as Record<string, unknown> | undefined;
      if (!op) continue;
      Object.assign(op, { deprecated: true, 'x-deprecated-at': deprecation.at, ...(deprecation.sunset ? { 'x-sunset': deprecation.sunset } : {}) });
      for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, { headers?: object; $ref?: string }>)) {
        if (status.startsWith('2') && !response.$ref) response.headers = { ...response.headers, ...deprecationHeaderObjects(deprecation) };
      }
    }
  }
  return copy as T;
}

/**
 * The bundled YAML document `text` (generated/openapi/*.yaml) as `version` serves it:
 * the same text with `info.version` replaced (the bundler writes `info:` at the top level
 * and its `version:` two spaces in). Throws when it cannot find it.
 */
export function servedDocumentYaml(text: string, version: ApiVersion): string {
  const info = /^info:\n((?: {2,}.*\n|\n)*)/m.exec(text);
  const line = info && /^ {2}version: *'?([^'\n]+)'?$/m.exec(info[1]);
  if (!info || !line) throw new Error('the YAML document has no info.version');
  const start = info.index + 'info:\n'.length + line.index;
  return `${text.slice(0, start)}  version: ${servedInfoVersion(line[1].trim(), version)}${text.slice(start + line[0].length)}`;
}
