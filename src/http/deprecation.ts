/**
 * Deprecation that machines can read, driven by the documents. An operation or a
 * parameter marked `deprecated: true` carries `x-deprecated-at` (the date it was
 * deprecated, `YYYY-MM-DD`, required) and may carry `x-sunset` (the date after which it
 * may be gone). A response to it, or to a request that sends the deprecated parameter,
 * carries `Deprecation: @<epoch seconds>` (RFC 9745), `Sunset: <HTTP-date>` when there is
 * a sunset (RFC 8594), and `Link` to the changelog (`rel="deprecation"`, and
 * `rel="sunset"` with a sunset). A whole API version is deprecated in one place,
 * API_VERSION_DEPRECATIONS in ./versions.ts, with the same two dates. From its sunset an
 * operation or a version answers 410 GONE naming what replaces it (`x-successor`, or the
 * version's `successor`).
 */
import { AppError } from '../kernel/errors.js';

/**
 * When something was deprecated and, if known, when it goes away (both `YYYY-MM-DD`, UTC),
 * and what replaces it: an operation's successor (`x-successor`, e.g. `POST /payouts`), a
 * version's the version to move to (`v2`).
 */
export interface Deprecation {
  at: string;
  sunset?: string;
  successor?: string;
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
  'x-successor'?: unknown;
}

/**
 * The deprecation a document node (operation or parameter) declares, or undefined when it
 * is not deprecated. Throws (naming `where`) when it is deprecated without a valid
 * `x-deprecated-at`, or has an invalid `x-sunset` or one before it, or an `x-successor`
 * that is not a string of 1 to 200 characters.
 */
export function deprecationOf(node: Deprecatable | undefined, where: string): Deprecation | undefined {
  if (!node?.deprecated) return undefined;
  const at = node['x-deprecated-at'];
  const sunset = node['x-sunset'];
  const successor = node['x-successor'];
  if (typeof at !== 'string' || !DATE.test(at) || Number.isNaN(Date.parse(at))) {
    throw new Error(`${where} is deprecated without x-deprecated-at (YYYY-MM-DD): RFC 9745 needs the date`);
  }
  if (successor !== undefined && (typeof successor !== 'string' || successor.length < 1 || successor.length > 200)) {
    throw new Error(`${where}: x-successor must be a string of 1 to 200 characters`);
  }
  const named = successor === undefined ? {} : { successor };
  if (sunset === undefined) return { at, ...named };
  if (typeof sunset !== 'string' || !DATE.test(sunset) || Number.isNaN(Date.parse(sunset)) || sunset < at) {
    throw new Error(`${where}: x-sunset must be a date (YYYY-MM-DD) not before x-deprecated-at`);
  }
  return { at, sunset, ...named };
}

/** Whether `deprecation`'s sunset has come at `now` (ms since the epoch): from 00:00 UTC of its date, the `Sunset` header's instant. */
export function sunsetPassed(deprecation: Deprecation | undefined, now: number): boolean {
  return deprecation?.sunset !== undefined && now >= Date.parse(`${deprecation.sunset}T00:00:00Z`);
}

/**
 * The 410 GONE for `what` (`GET /things`, or `API version v1`) past `deprecation`'s
 * sunset: the problem names the sunset and, when there is one, the successor.
 */
export function goneError(what: string, deprecation: Deprecation): AppError {
  const instead = deprecation.successor ? `; use ${deprecation.successor} instead` : '';
  return new AppError('GONE', `${what} passed its sunset on ${deprecation.sunset} and no longer answers${instead}.`, {
    extensions: { sunset: deprecation.sunset, ...(deprecation.successor ? { successor: deprecation.successor } : {}) },
  });
}

/**
 * The response a sunset operation documents for 410 GONE, in a bundled document (it refers
 * to `#/components/schemas/Problem` and the shared headers): the one definition, which a
 * deprecated version's documents add to every operation (./versions.ts) and which
 * openapi/shared.yaml's `Gone` response, referenced by an operation with `x-sunset`,
 * repeats (test/contract/deprecation.test.ts compares them).
 */
export function goneResponse(): Record<string, unknown> {
  return {
    description: 'The operation or the API version passed its sunset (`GONE`): the problem names the date and what replaces it. Nothing was changed.',
    headers: {
      'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
      'X-API-Version': { $ref: '#/components/headers/X-API-Version' },
    },
    content: {
      'application/problem+json': {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/Problem' },
            {
              type: 'object',
              required: ['code', 'sunset'],
              properties: {
                code: { type: 'string', enum: ['GONE'] },
                sunset: { type: 'string', format: 'date', description: 'The sunset date (UTC) that passed.' },
                successor: { type: 'string', maxLength: 200, description: 'What replaces it: an operation (`POST /payouts`) or an API version (`v2`).' },
              },
            },
          ],
        },
      },
    },
  };
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
  responses?: Record<string, { headers?: Record<string, unknown>; $ref?: string }>;
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
  if (deprecation?.sunset && !op.responses?.['410']) {
    throw new Error(`${where}: an operation with x-sunset must document the 410 it answers after it (shared.yaml's Gone)`);
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
