/**
 * Each account's last entry time on its row: `accounts.last_entry_at` (null until its first
 * entry; milliseconds, as the entries' `created_at`), backfilled from the entries.
 *
 * `ledger_post` stamps a transaction greatest(now(), the last entry time of either account),
 * so that an account's entries follow each other in time in the order they were posted. It
 * read that time with `max(created_at)` over the account's entries: an index step twice
 * per posting, which grows dear once the ledger outgrows PostgreSQL's buffers (its pages
 * read from disk). The account's row is locked and updated by the same posting anyway,
 * so the time now travels with the balance: nothing a posting reads grows with the ledger.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE accounts ADD COLUMN IF NOT EXISTS last_entry_at timestamptz(3);
    UPDATE accounts a SET last_entry_at = m.at
      FROM (SELECT business_id, account_id, max(created_at) AS at FROM ledger_entries GROUP BY business_id, account_id) m
     WHERE a.business_id = m.business_id AND a.id = m.account_id;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE accounts DROP COLUMN IF EXISTS last_entry_at');
}
