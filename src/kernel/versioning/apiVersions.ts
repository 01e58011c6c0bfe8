/**
 * The API versions this service serves and how they differ: the one list of versions
 * (oldest first) and the one ordered list of version changes (./changes.ts). The source
 * documents and the handlers describe the newest version; every older version is the
 * newest minus the changes made after it (./versionChange.ts). Below the HTTP layer so
 * that the capabilities (a business's pinned version, a webhook endpoint's version and the
 * payloads it receives) use the same list.
 */
import { VERSION_CHANGES } from './changes.js';
import { ApiVersioning } from './versionChange.js';

/**
 * Values of `X-API-Version`, oldest first. A new version is added here with its version
 * changes (./changes.ts) and released by `npm run api:release`, which writes its documents.
 */
export const SUPPORTED_API_VERSIONS = ['v1', 'v2', 'v3', 'v4'] as const;

/** One of SUPPORTED_API_VERSIONS. */
export type ApiVersion = (typeof SUPPORTED_API_VERSIONS)[number];

/**
 * The default version: a business created without `api_version` gets it, and a request
 * without `X-API-Version` from no business uses it. v1, the seed's shapes (the service
 * interface's own examples are v1's).
 */
export const DEFAULT_API_VERSION: ApiVersion = 'v1';

/** The version the guides, the portal and the changelog recommend to a new integration. */
export const RECOMMENDED_API_VERSION: ApiVersion = 'v4';

/**
 * When a version was deprecated and, if known, when it goes away (both `YYYY-MM-DD`, UTC),
 * and the version to move to. The same shape as an operation's deprecation
 * (src/http/deprecation.ts Deprecation).
 */
export interface VersionDeprecation {
  at: string;
  sunset?: string;
  successor?: string;
}

/**
 * The deprecated API versions, until when and what to move to: e.g. `v1: { at: '2027-01-15',
 * sunset: '2027-07-15', successor: 'v4' }`. Every response to a request of a deprecated version
 * (behind the token) carries the deprecation headers, and its documents mark every such
 * operation deprecated with those dates; from the sunset its requests are answered 410 GONE.
 * None is deprecated today.
 */
export const API_VERSION_DEPRECATIONS: Partial<Record<ApiVersion, VersionDeprecation>> = {};

/** Whether `value` names a supported version. */
export function isApiVersion(value: string): value is ApiVersion {
  return (SUPPORTED_API_VERSIONS as readonly string[]).includes(value);
}

/** The shipped versions and version changes: what the edge, the documents and the webhooks apply. */
export const API_VERSIONING = new ApiVersioning(SUPPORTED_API_VERSIONS, VERSION_CHANGES);
