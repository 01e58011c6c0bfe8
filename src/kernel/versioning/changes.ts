/**
 * The shipped version changes, oldest first: each breaking change made to the documents
 * and the handlers, as a module that undoes it for the versions before it
 * (./versionChange.ts). Empty today: v1, v2 and v3 have the same shapes.
 * test/contract/versionChanges.test.ts shows one (kept in the test, not shipped).
 */
import type { VersionChange } from './versionChange.js';

export const VERSION_CHANGES: readonly VersionChange[] = [];
