/**
 * Knex connection and migrations. Migrations are listed in code (not loaded
 * from a folder) so that they run the same under tsx, mocha and the knex CLI.
 */
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import * as initial from './migrations/001_initial.js';
import * as customers from './migrations/004_customers.js';
import * as identity from './migrations/005_identity.js';
import * as mobileNumberChange from './migrations/006_mobile_number_change.js';
import * as cards from './migrations/007_cards.js';

// numeric → string (exact money), int8 → string: never a JS number for money.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v: string) => v);

const MIGRATIONS: Record<string, Knex.Migration> = {
  '001_initial': initial,
  // 002 and 003 are the ledger-performance branch's.
  '004_customers': customers,
  '005_identity': identity,
  '006_mobile_number_change': mobileNumberChange,
  '007_cards': cards,
};

/** Migration source for `knex.migrate` with the migrations above. */
export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(MIGRATIONS),
  getMigrationName: (name) => name,
  getMigration: async (name) => MIGRATIONS[name],
};

/** Knex configuration for a PostgreSQL connection string. */
export function knexConfig(connectionString: string): Knex.Config {
  return {
    client: 'pg',
    connection: connectionString,
    pool: { min: 0, max: 20 },
    // knex would print each failed connection attempt to the console; every such error
    // also fails its request, which the service logs (one line per outage, see
    // db/unavailable.ts), so knex's own console output is switched off.
    log: { warn() {}, error() {}, deprecate() {}, debug() {} },
    migrations: { migrationSource },
  };
}

/** Opens a pool to `connectionString` and applies pending migrations. */
export async function connectAndMigrate(connectionString: string): Promise<Knex> {
  const db = knexFactory(knexConfig(connectionString));
  await db.migrate.latest();
  return db;
}
