/**
 * Deprecation that machines can read, driven by the documents. An operation or a
 * parameter marked `deprecated: true` carries `x-deprecated-at` (the date it was
 * deprecated, `YYYY-MM-DD`, required) and may carry `x-sunset` (the date after which it
 * may be gone). A response to it, or to a request that sends the deprecated parameter,
 * carries `Deprecation: @<epoch seconds>` (RFC 9745), `Sunset: <HTTP-date>` when there is
 * a sunset (RFC 8594), and `Link` to the changelog (`rel="deprecation"`, and
 * `rel="sunset"` with a sunset). A whole API version is deprecated in one place,
 * API_VERSION_DEPRECATIONS in ./versions.ts, with the same two dates.
 */

/** When something was deprecated and, if known, when it goes away (both `YYYY-MM-DD`, UTC). */
export interface Deprecation {
  at: string;
  sunset?: string;
}

/** A deprecated parameter of an operation. */
export interface DeprecatedParameter {
  name: string;
  in: string;
  deprecation: Deprecation;
}

/** Where the deprecation headers link: the changelog, written for integrators, says what replaces what. */
export const DEPRECATION_LINK = '/changelog';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

interface Deprecatable {
  deprecated?: boolean;
  'x-deprecated-at'?: unknown;
  'x-sunset'?: unknown;
}

/**
 * The deprecation a document node (operation or parameter) declares, or undefined when it
 * is not deprecated. Throws (naming `where`) when it is deprecated without a valid
 * `x-deprecated-at`, or has an invalid `x-sunset` or one before it.
 */
export function deprecationOf(node: Deprecatable | undefined, where: string): Deprecation | undefined {
  if (!node?.deprecated) return undefined;
  const at = node['x-deprecated-at'];
  const sunset = node['x-sunset'];
  if (typeof at !== 'string' || !DATE.test(at) || Number.isNaN(Date.parse(at))) {
    throw new Error(`${where} is deprecated without x-deprecated-at (YYYY-MM-DD): RFC 9745 needs the date`);
  }
  if (sunset === undefined) return { at };
  if (typeof sunset !== 'string' || !DATE.test(sunset) || Number.isNaN(Date.parse(sunset)) || sunset < at) {
    throw new Error(`${where}: x-sunset must be a date (YYYY-MM-DD) not before x-deprecated-at`);
  }
  return { at, sunset };
}

/** The response headers of `deprecation`: Deprecation, and with a sunset, Sunset; Link to the changelog. */
export function deprecationHeaders(deprecation: Deprecation): Record<string, string> {
  const link = [`<${DEPRECATION_LINK}>; rel="deprecation"`];
  const headers: Record<string, string> = { Deprecation: `@${Date.parse(`${deprecation.at}T00:00:00Z`) / 1000}` };
  if (deprecation.sunset) {
    headers.Sunset = new Date(`${deprecation.sunset}T00:00:00Z`).toUTCString();
    link.push(`<${DEPRECATION_LINK}>; rel="sunset"`);
  }
  headers.Link = link.join(', ');
  return headers;
}

/** Whether the request sends parameter `p` (query, header or cookie; a path parameter is always sent). */
function sends(p: DeprecatedParameter, request: { query: Record<string, unknown>; headers: Record<string, unknown> }): boolean {
  if (p.in === 'query') return p.name in request.query;
  if (p.in === 'header') return p.name.toLowerCase() in request.headers;
  if (p.in === 'cookie') return new RegExp(`(?:^|;\\s*)${p.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}=`).test(String(request.headers.cookie ?? ''));
  return true;
}

/**
 * The deprecation a request meets: its operation's, else the first deprecated parameter
 * it sends, else its API version's; undefined when none.
 */
export function requestDeprecation(
  operation: { deprecation?: Deprecation; deprecatedParameters?: DeprecatedParameter[] },
  request: { query: Record<string, unknown>; headers: Record<string, unknown> },
  version?: Deprecation,
): Deprecation | undefined {
  return operation.deprecation ?? operation.deprecatedParameters?.find((p) => sends(p, request))?.deprecation ?? version;
}

interface DocumentOperation extends Deprecatable {
  operationId?: string;
  parameters?: (Deprecatable & { name?: string; in?: string })[];
  responses?: Record<string, { headers?: Record<string, unknown> }>;
}

/**
 * The deprecations of a dereferenced document operation (path-level parameters
 * included): its own and its deprecated parameters'. Throws when a deprecation has no
 * valid date, or when a success response of something deprecated does not document the
 * headers it will carry (`Deprecation` and `Link`, and `Sunset` with a sunset).
 */
export function operationDeprecations(op: DocumentOperation): { deprecation?: Deprecation; deprecatedParameters: DeprecatedParameter[] } {
  const where = `operation ${op.operationId}`;
  const deprecation = deprecationOf(op, where);
  const deprecatedParameters: DeprecatedParameter[] = [];
  for (const p of op.parameters ?? []) {
    const d = deprecationOf(p, `${where} parameter ${p.name}`);
    if (d && p.name && p.in) deprecatedParameters.push({ name: p.name, in: p.in, deprecation: d });
  }
  for (const d of [deprecation, ...deprecatedParameters.map((p) => p.deprecation)]) {
    if (!d) continue;
    const needed = ['Deprecation', 'Link', ...(d.sunset ? ['Sunset'] : [])];
    for (const [status, response] of Object.entries(op.responses ?? {})) {
      if (!status.startsWith('2')) continue;
      const missing = needed.filter((h) => !Object.keys(response.headers ?? {}).some((k) => k.toLowerCase() === h.toLowerCase()));
      if (missing.length) throw new Error(`${where}: response ${status} of something deprecated must document the headers ${missing.join(', ')}`);
    }
  }
  // No `deprecation` key when there is none, so that the precompiled JSON (which drops undefined) is the same.
  return deprecation ? { deprecation, deprecatedParameters } : { deprecatedParameters };
}
