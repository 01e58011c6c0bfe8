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

/** Values of `X-API-Version`, oldest first; the first is the default. */
export const SUPPORTED_API_VERSIONS = ['v1', 'v2', 'v3'] as const;

/** One of SUPPORTED_API_VERSIONS. */
export type ApiVersion = (typeof SUPPORTED_API_VERSIONS)[number];

/** The default version: the one a request without `X-API-Version` uses when no business pins another. */
export const DEFAULT_API_VERSION: ApiVersion = SUPPORTED_API_VERSIONS[0];

/** Whether `value` names a supported version. */
export function isApiVersion(value: string): value is ApiVersion {
  return (SUPPORTED_API_VERSIONS as readonly string[]).includes(value);
}

/** The shipped versions and version changes: what the edge, the documents and the webhooks apply. */
export const API_VERSIONING = new ApiVersioning(SUPPORTED_API_VERSIONS, VERSION_CHANGES);
