/**
 * Ledger entries indexed under their business: `ledger_entries (business_id, account_id,
 * created_at, id)` replaces `ledger_entries (account_id, created_at, id)`, and
 * `ledger_entries (business_id, transaction_id)` replaces `ledger_entries (transaction_id)`.
 *
 * Every read of an account's entries names the business beside the account (a table
 * distributed by business is read on that business's node only). With `business_id`
 * outside the index, PostgreSQL could not treat both as one index range: `ledger_post`'s
 * look-up of an account's last entry time (`max(created_at)`) became a bitmap scan of
 * every entry of the account whenever the statistics were older than the account's
 * growth, a cost per posting growing with the account, instead of one backward index
 * step. With both columns leading, the last entry time, a statement's opening balance and
 * its entries of a period are each one index range again. A transaction's entries (the balance check at commit, the replay
 * of a posting) are named by business and transaction the same way: beside an index that
 * leads with `business_id`, the transaction's own index alone left the planner a bitmap
 * AND of the two, many times slower. The two indexes also serve the foreign keys
 * `(business_id, account_id)` to `accounts` and `(business_id, transaction_id)` to
 * `transactions`.
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
    CREATE INDEX IF NOT EXISTS ledger_entries_business_id_transaction_id_index
      ON ledger_entries (business_id, transaction_id);
    DROP INDEX IF EXISTS ledger_entries_transaction_id_index;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX IF NOT EXISTS ledger_entries_account_id_created_at_id_index ON ledger_entries (account_id, created_at, id);
    DROP INDEX IF EXISTS ledger_entries_business_id_account_id_created_at_id_index;
    CREATE INDEX IF NOT EXISTS ledger_entries_transaction_id_index ON ledger_entries (transaction_id);
    DROP INDEX IF EXISTS ledger_entries_business_id_transaction_id_index;
  `);
}
