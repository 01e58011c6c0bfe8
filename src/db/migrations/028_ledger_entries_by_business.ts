/**
 * An account's entries by time under their business: `ledger_entries (business_id,
 * account_id, created_at, id)` replaces `ledger_entries (account_id, created_at, id)`.
 *
 * Every read of an account's entries names the business beside the account (a table
 * distributed by business is read on that business's node only). With `business_id`
 * outside the index, PostgreSQL could not treat both as one index range: `ledger_post`'s
 * look-up of an account's last entry time (`max(created_at)`) became a bitmap scan of
 * every entry of the account whenever the statistics were older than the account's
 * growth, about 0.18 ms a posting on a payout account of 2,000 entries and growing with
 * the account, instead of one backward index step. With both columns leading, the
 * last entry time, a statement's opening balance and its entries of a period are each
 * one index range again. The index also serves the foreign key `(business_id,
 * account_id)` to `accounts`.
 *
 * Built with a plain CREATE INDEX, which blocks writes to `ledger_entries` while it runs
 * (seconds per million entries); a ledger too large for that builds it CONCURRENTLY by
 * hand first (same name: IF NOT EXISTS then skips it here).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX IF NOT EXISTS ledger_entries_business_id_account_id_created_at_id_index
      ON ledger_entries (business_id, account_id, created_at, id);
    DROP INDEX IF EXISTS ledger_entries_account_id_created_at_id_index;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX IF NOT EXISTS ledger_entries_account_id_created_at_id_index ON ledger_entries (account_id, created_at, id);
    DROP INDEX IF EXISTS ledger_entries_business_id_account_id_created_at_id_index;
  `);
}
