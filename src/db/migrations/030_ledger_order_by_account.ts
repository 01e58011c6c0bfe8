/**
 * The ledger's order and references without a node's sequence: each entry is numbered in
 * its account, and transaction references are drawn at random.
 *
 * - `ledger_entries.entry_number`: the entry's place in its account (1, 2, …), taken from
 *   `accounts.last_entry_number`, which the posting locks and writes with the balance
 *   (src/ledger/sql/ledger_post.sql). An account's entries are ordered by it; with the
 *   posting's time stamp (never earlier than the account's last entry) `(created_at,
 *   entry_number)` is the same order, which statements read by time. The primary key is
 *   `(business_id, account_id, entry_number)`: the rule that a number is drawn once per
 *   account. The `bigserial` id it replaces came from a sequence of whichever node inserted
 *   the row: on a distributed database (docs/scale-out.md) ids of one account drawn on two
 *   nodes, or on one node before and another after the business moved, do not follow the
 *   order of posting.
 * - `transaction_reference_seq` is dropped: a reference (`TXN` and 12 digits) is drawn at
 *   random by the posting and kept unique per business by `transactions_reference_unique`
 *   (src/ledger/sql/ledger_post.sql), since a sequence is one node's.
 *
 * Existing entries are numbered in their old order `(created_at, id)`. The immutability
 * trigger is set aside for the backfill (the rows' amounts and balances are untouched).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE accounts ADD COLUMN last_entry_number bigint NOT NULL DEFAULT 0;
    ALTER TABLE ledger_entries ADD COLUMN entry_number bigint;
    ALTER TABLE ledger_entries DISABLE TRIGGER USER;
    UPDATE ledger_entries e SET entry_number = n.number
      FROM (SELECT business_id, id, row_number() OVER (PARTITION BY business_id, account_id ORDER BY created_at, id) AS number
              FROM ledger_entries) n
     WHERE e.business_id = n.business_id AND e.id = n.id;
    ALTER TABLE ledger_entries ENABLE TRIGGER USER;
    UPDATE accounts a SET last_entry_number = m.number
      FROM (SELECT business_id, account_id, max(entry_number) AS number FROM ledger_entries GROUP BY business_id, account_id) m
     WHERE a.business_id = m.business_id AND a.id = m.account_id;
    ALTER TABLE ledger_entries ALTER COLUMN entry_number SET NOT NULL;
    ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_pkey;
    ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_pkey PRIMARY KEY (business_id, account_id, entry_number);
    CREATE INDEX ledger_entries_business_id_account_id_created_at_entry_number_index
      ON ledger_entries (business_id, account_id, created_at, entry_number);
    DROP INDEX ledger_entries_business_id_account_id_created_at_id_index;
    ALTER TABLE ledger_entries DROP COLUMN id;
    DROP SEQUENCE IF EXISTS transaction_reference_seq;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE SEQUENCE IF NOT EXISTS transaction_reference_seq START 1;
    ALTER TABLE ledger_entries ADD COLUMN id bigserial;
    ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_pkey;
    ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_pkey PRIMARY KEY (id, business_id);
    CREATE INDEX ledger_entries_business_id_account_id_created_at_id_index ON ledger_entries (business_id, account_id, created_at, id);
    DROP INDEX ledger_entries_business_id_account_id_created_at_entry_number_index;
    ALTER TABLE ledger_entries DROP COLUMN entry_number;
    ALTER TABLE accounts DROP COLUMN last_entry_number;
  `);
}
