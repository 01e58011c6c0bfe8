/** Values of `X-API-Version` (seed, "Versioning"); the first is the default. */
export const SUPPORTED_API_VERSIONS = ['v1', 'v2', 'v3'] as const;
