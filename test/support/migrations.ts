/**
 * A database of its own for a test of one migration: created in `before` on the test
 * service's cluster, dropped in `after`; `migrateToJustBefore` runs the migrations before
 * the one under test, so the test can leave rows as they were then and run it.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { knexConfig } from '../../src/db/knex.js';
import { running } from './service.js';

/** Registers the hooks of a database of its own (name `<prefix>_<random>`); `db()` is its pool, once `before` ran. */
export function migrationDatabase(prefix: string): { db: () => Knex } {
  const database = `${prefix}_${randomUUID().slice(0, 8)}`;
  let db: Knex | undefined;
  before(async () => {
    await running().db.raw(`CREATE DATABASE ${database}`);
    db = knexFactory(knexConfig(running().databaseUrl.replace(/\/[^/]*$/, `/${database}`), { poolSize: 2 }));
  });
  after(async () => {
    await db?.destroy();
    await running().db.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });
  return { db: () => db! };
}

/** Runs the migrations of `db` up to, not including, `name`; fails when `name` has run already. */
export async function migrateToJustBefore(db: Knex, name: string): Promise<void> {
  for (;;) {
    const [, pending] = (await db.migrate.list()) as [unknown[], unknown[]];
    expect(pending, `migration ${name} is still to run`).to.include(name);
    if (pending[0] === name) return;
    await db.migrate.up();
  }
}
