/**
 * The schema's baseline: every table, column, default, index, constraint and sequence
 * of the service, as the migrations 001–023 left them (src/db/legacyMigrations.ts),
 * written as DDL only. Functions and triggers are not here: each has its one current
 * definition in a `.sql` file of its capability, applied after the migrations
 * (src/db/sqlFunctions.ts; a trigger function's file also creates its trigger).
 *
 * Numbered 024, after the last migration it replaces, so that a number never names two
 * migrations: "migration 022" in the history means 022_outbox_pending, and the next
 * migration is 025. A database migrated by 001–023 is not migrated by this file: its
 * recorded names are replaced by this one at start (src/db/legacyMigrations.ts), since
 * its schema already is this one (test/platform/database/schemaUpgrade.test.ts checks both ways
 * give the same catalog). The live schema, generated: docs/schema.md.
 *
 * Names of constraints and indexes are the ones the old migrations gave (mostly knex's
 * `<table>_<columns>_<unique|foreign|index|check>`), because code and tests name some of
 * them (e.g. `bulk_payouts_counts_range`) and upgraded databases keep them. Columns are in
 * the order they were added, which is the order of every upgraded table's row type.
 *
 * Conventions: money is `numeric(20,2)` (exactly the API's two-decimal strings, never a
 * float); timestamps are `timestamptz(3)`, the API's millisecond precision, so cursors
 * built from them round-trip exactly. Every table of a business's data carries
 * `business_id` (test/platform/database/sqlDefinitions.test.ts lists the exceptions), so that the
 * schema can be distributed by it.
 *
 * No default, check or index calls a function of the `.sql` files (they do not exist yet
 * when this runs, and a test keeps it so): should one ever need to, the function's file
 * sets it (`ALTER TABLE … ALTER COLUMN … SET DEFAULT`), as it creates its trigger.
 *
 * The sections (./baseline/, one module each, applied in this order) group the tables in
 * creation order (a table after those it references), not strictly by owner: each table's
 * owner, the one room that writes its rows, is in src/db/tableOwners.ts, and a section says
 * which of its tables belong to another room.
 */
import type { Knex } from 'knex';
import { PLATFORM } from './baseline/platform.js';
import { LEDGER } from './baseline/ledger.js';
import { CUSTOMERS } from './baseline/customers.js';
import { WEBHOOKS } from './baseline/webhooks.js';
import { CARDS } from './baseline/cards.js';
import { PAYOUTS } from './baseline/payouts.js';

export async function up(knex: Knex): Promise<void> {
  for (const section of [PLATFORM, LEDGER, CUSTOMERS, WEBHOOKS, CARDS, PAYOUTS]) await knex.raw(section);
}

export async function down(): Promise<void> {
  throw new Error('024_baseline is the first migration: to start over, drop the database (or its schema) instead');
}
