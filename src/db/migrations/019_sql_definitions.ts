/**
 * The PL/pgSQL of the service moves out of the migrations: from here on every
 * function and trigger function has one current definition, in a `.sql` file beside
 * its capability (`src/<capability>/sql/`), applied after the migrations whenever
 * its content changed (src/db/sqlFunctions.ts). Migrations hold DDL and data
 * changes only.
 *
 * This migration
 *   - creates `sql_definitions`, the applier's record: one row per file with the
 *     SHA-256 of the content it applied and the functions the file defines (so that
 *     the functions of a file that is removed, or no longer defines one, are dropped);
 *   - drops the functions that no file defines any more: the wrappers and renamed
 *     bodies that earlier migrations stacked in front of `ledger_move`
 *     (ledger_move_cards, ledger_move_base, ledger_move_closed_loop, the
 *     ledger_posting_of and payout_create wrappers' inner bodies), helpers folded
 *     into `ledger_post` (ledger_lock_pair, business_account), `ledger_reverse`
 *     (now `ledger_reversal`) and `account_number_next` (account numbers are drawn in
 *     TypeScript only, src/ledger/accountNumbers.ts). Functions that keep their name
 *     are replaced by the applier, which drops a changed file's old signatures first;
 *   - adds `business_id` to `ledger_entries` (NOT NULL, backfilled from each entry's
 *     transaction) and to `idempotency_keys` (NULL for the platform's own keys,
 *     backfilled from the scope when it is a business's id), so that every table
 *     holding a business's data carries it and the schema can be distributed by it.
 *
 * Irreversible: the functions it drops are no longer written anywhere.
 */
import type { Knex } from 'knex';

const OBSOLETE = [
  'ledger_move_cards(uuid, text, jsonb)',
  'ledger_move_base(uuid, text, jsonb)',
  'ledger_move_closed_loop(uuid, text, jsonb)',
  'ledger_posting_of_transaction(uuid)',
  'payout_create_open(uuid, jsonb)',
  'ledger_reverse(uuid, jsonb)',
  'ledger_lock_pair(uuid, uuid, uuid)',
  'business_account(uuid, text)',
  'account_number_next(text)',
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE sql_definitions (
      name text PRIMARY KEY,
      sha256 text NOT NULL,
      functions text[] NOT NULL,
      applied_at timestamptz(3) NOT NULL DEFAULT now()
    );

    ${OBSOLETE.map((f) => `DROP FUNCTION IF EXISTS ${f};`).join('\n    ')}

    ALTER TABLE ledger_entries ADD COLUMN business_id uuid;
    -- Entries are immutable (a trigger refuses every UPDATE); this backfill is the one exception.
    ALTER TABLE ledger_entries DISABLE TRIGGER USER;
    UPDATE ledger_entries e SET business_id = t.business_id FROM transactions t WHERE t.id = e.transaction_id;
    ALTER TABLE ledger_entries ENABLE TRIGGER USER;
    -- No foreign key of its own: it is its transaction's business, which that transaction's key
    -- already checks; a second check on every entry would cost two lookups per movement.
    ALTER TABLE ledger_entries ALTER COLUMN business_id SET NOT NULL;

    -- No foreign key: a key's row records whose request it answered, even a request naming no business.
    ALTER TABLE idempotency_keys ADD COLUMN business_id uuid;
    UPDATE idempotency_keys k SET business_id = b.id FROM businesses b WHERE k.scope = b.id::text;
  `);
}

export async function down(): Promise<void> {
  throw new Error('019_sql_definitions cannot be undone: the functions it drops are no longer written anywhere');
}
