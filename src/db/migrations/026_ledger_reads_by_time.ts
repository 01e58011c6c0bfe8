/**
 * Reads of one account's entries by time, whatever the ledger's size: the index
 * `ledger_entries (account_id, created_at, id)` serves a statement's opening balance
 * (the last entry before `from`: one backward index step), its entries of a period
 * (an index range, read one page at a time by cursor) and `ledger_post`'s look-up of an
 * account's last entry time. It replaces `ledger_entries (account_id, id)`, whose order
 * no read needs any more (its leading column still serves the foreign key to `accounts`).
 *
 * No backfill: `balance_after`, the running balance every statement reads, is in the
 * baseline and written by `ledger_post` for every entry. Built with a plain CREATE INDEX,
 * which blocks writes to `ledger_entries` while it runs (seconds per million entries); a
 * ledger too large for that builds it CONCURRENTLY by hand first (same name: IF NOT EXISTS
 * then skips it here).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX IF NOT EXISTS ledger_entries_account_id_created_at_id_index ON ledger_entries (account_id, created_at, id);
    DROP INDEX IF EXISTS ledger_entries_account_id_id_index;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX IF NOT EXISTS ledger_entries_account_id_id_index ON ledger_entries (account_id, id);
    DROP INDEX IF EXISTS ledger_entries_account_id_created_at_id_index;
  `);
}
