/**
 * Knex CLI configuration (`npx knex --knexfile knexfile.ts migrate:status`).
 * The service itself migrates on start; this file is for operators using
 * DATABASE_URL against their own PostgreSQL.
 */
import { knexConfig } from './src/db/knex.js';

const url = process.env.DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/wallet';

export default knexConfig(url);
