/**
 * The tables of the service schema that are not a business's data, by how the distributed
 * schema keeps them: the classes `npm run db:distribute` places (src/db/distribution.ts,
 * docs/scale-out.md). Every other table is a tenant table, distributed by `business_id`.
 */
export { COORDINATOR_TABLES, DIRECTORY_TABLES, REFERENCE_TABLES } from '../../src/db/distribution.js';
