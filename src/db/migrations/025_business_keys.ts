/**
 * Keys that carry the business, so that the schema can be distributed by `business_id`
 * (Citus: `npm run db:distribute`, src/db/distribution.ts, docs/scale-out.md; the rules, checked on the
 * catalog: test/platform/database/distribution.test.ts).
 *
 *   - Every primary key and unique constraint of a tenant table includes `business_id`.
 *     It comes last: `(id, business_id)`, so every lookup by id alone that the service
 *     makes today keeps its index, with no second index to write per row. A Citus
 *     distributed table needs its distribution column in each unique index, in any
 *     position.
 *   - Every foreign key between tenant tables pairs `business_id` with `business_id`
 *     (`FOREIGN KEY (business_id, account_id) REFERENCES accounts (business_id, id)`):
 *     a row can only point at a row of its own business, and Citus accepts a foreign key
 *     between colocated tables only on the distribution column. MATCH SIMPLE, as before:
 *     a NULL reference (a label-less account) is not checked.
 *   - Values unique across businesses get directory tables keyed by the value, written
 *     in the transaction that writes the row they index: account numbers
 *     (`account_numbers`, written with each account by src/ledger/accounts.ts insertAccount),
 *     card tokens and PAN fingerprints (`card_tokens`, `card_pans`, written by
 *     src/cards/cards.ts as it inserts the card). The directory's primary key is the
 *     global rule (one account per number, one card per token, one card per PAN and
 *     generation); the tenant table keeps its own unique constraint within the business.
 *     Transaction references need none: they come from a sequence, unique by
 *     construction, and are only ever looked up within a business. Client ids already
 *     live in a global table, `api_clients` (platform clients belong to no business).
 *   - `idempotency_keys` becomes a tenant table: the platform's own keys (scope: a
 *     platform client's id) carry the nil UUID as their business, so `business_id` is
 *     NOT NULL like a distribution column must be; the key stays (scope, key), business_id
 *     being a function of the scope. `outbox_events` and `outbox_pending` always had a
 *     business (every producer sets it): now NOT NULL.
 *
 * Existing rows are kept: the directories are filled from the rows they index, platform
 * keys get the nil business. Constraint names stay the same.
 */
import type { Knex } from 'knex';

/** The business of the platform's own idempotency keys (src/kernel/sql/idempotency_finish.sql). */
const PLATFORM_BUSINESS = '00000000-0000-0000-0000-000000000000';

/** Foreign keys between tenant tables: [table, constraint, column, referenced table]. */
const FOREIGN_KEYS: [string, string, string, string][] = [
  ['accounts', 'accounts_label_id_foreign', 'label_id', 'labels'],
  ['bulk_payout_items', 'bulk_payout_items_bulk_payout_id_foreign', 'bulk_payout_id', 'bulk_payouts'],
  ['bulk_payout_items', 'bulk_payout_items_customer_id_foreign', 'customer_id', 'customers'],
  ['bulk_payout_items', 'bulk_payout_items_payout_id_foreign', 'payout_id', 'payouts'],
  ['card_issuances', 'card_issuances_account_id_foreign', 'account_id', 'accounts'],
  ['card_issuances', 'card_issuances_card_id_foreign', 'card_id', 'cards'],
  ['card_issuances', 'card_issuances_customer_id_foreign', 'customer_id', 'customers'],
  ['card_issuances', 'card_issuances_otp_operation_id_foreign', 'otp_operation_id', 'otp_operations'],
  ['card_otp_sessions', 'card_otp_sessions_card_id_foreign', 'card_id', 'cards'],
  ['card_otp_sessions', 'card_otp_sessions_otp_operation_id_foreign', 'otp_operation_id', 'otp_operations'],
  ['cards', 'cards_account_id_foreign', 'account_id', 'accounts'],
  ['cards', 'cards_customer_id_foreign', 'customer_id', 'customers'],
  ['cards', 'cards_issuance_id_foreign', 'issuance_id', 'card_issuances'],
  ['cards', 'cards_replaced_by_card_id_foreign', 'replaced_by_card_id', 'cards'],
  ['cards', 'cards_replaces_card_id_foreign', 'replaces_card_id', 'cards'],
  ['customers', 'customers_wallet_id_foreign', 'wallet_id', 'accounts'],
  ['ledger_entries', 'ledger_entries_account_id_foreign', 'account_id', 'accounts'],
  ['ledger_entries', 'ledger_entries_transaction_id_foreign', 'transaction_id', 'transactions'],
  ['mobile_number_change_sessions', 'mobile_number_change_sessions_customer_id_foreign', 'customer_id', 'customers'],
  ['mobile_number_change_sessions', 'mobile_number_change_sessions_otp_operation_id_foreign', 'otp_operation_id', 'otp_operations'],
  ['onboarding_sessions', 'onboarding_sessions_customer_id_foreign', 'customer_id', 'customers'],
  ['onboarding_sessions', 'onboarding_sessions_otp_operation_id_foreign', 'otp_operation_id', 'otp_operations'],
  ['otp_operations', 'otp_operations_previous_operation_id_foreign', 'previous_operation_id', 'otp_operations'],
  ['payout_whitelist_entries', 'payout_whitelist_entries_customer_id_foreign', 'customer_id', 'customers'],
  ['payouts', 'payouts_creation_transaction_id_foreign', 'creation_transaction_id', 'transactions'],
  ['payouts', 'payouts_customer_id_foreign', 'customer_id', 'customers'],
  ['payouts', 'payouts_outcome_transaction_id_foreign', 'outcome_transaction_id', 'transactions'],
  ['payouts', 'payouts_wallet_id_foreign', 'wallet_id', 'accounts'],
  ['tokenization_activation_requests', 'tokenization_activation_requests_card_id_foreign', 'card_id', 'cards'],
  ['tokenization_activation_requests', 'tokenization_activation_requests_otp_operation_id_foreign', 'otp_operation_id', 'otp_operations'],
  ['transactions', 'transactions_credit_account_id_foreign', 'credit_account_id', 'accounts'],
  ['transactions', 'transactions_debit_account_id_foreign', 'debit_account_id', 'accounts'],
  ['transactions', 'transactions_original_transaction_id_foreign', 'original_transaction_id', 'transactions'],
  ['transactions', 'transactions_reversal_transaction_id_foreign', 'reversal_transaction_id', 'transactions'],
  ['webhook_deliveries', 'webhook_deliveries_endpoint_id_foreign', 'endpoint_id', 'webhook_endpoints'],
  ['webhook_deliveries', 'webhook_deliveries_event_id_foreign', 'event_id', 'outbox_events'],
  ['webhook_delivery_attempts', 'webhook_delivery_attempts_delivery_id_foreign', 'delivery_id', 'webhook_deliveries'],
];

/** Tenant tables whose primary key is `(id)`: it becomes `(id, business_id)`. */
const ID_KEYED = [
  'accounts', 'bulk_payout_items', 'bulk_payouts', 'card_issuances', 'card_otp_sessions', 'cards', 'customers',
  'labels', 'ledger_entries', 'mobile_number_change_sessions', 'onboarding_sessions', 'otp_operations', 'outbox_events',
  'payout_whitelist_entries', 'payouts', 'provider_requests', 'sandbox_sms_messages', 'tokenization_activation_requests',
  'transactions', 'webhook_deliveries', 'webhook_delivery_attempts', 'webhook_endpoints',
];

/** Other primary keys and unique constraints of tenant tables: [table, constraint, columns without business_id]. */
const OTHER_KEYS: [string, string, string, 'PRIMARY KEY' | 'UNIQUE'][] = [
  ['idempotency_keys', 'idempotency_keys_pkey', 'scope, key', 'PRIMARY KEY'],
  ['outbox_pending', 'outbox_pending_pkey', 'created_at, event_id', 'PRIMARY KEY'],
  ['provider_callback_events', 'provider_callback_events_pkey', 'provider, event_id', 'PRIMARY KEY'],
  ['accounts', 'accounts_account_number_unique', 'account_number', 'UNIQUE'],
  ['transactions', 'transactions_reference_unique', 'reference', 'UNIQUE'],
  ['cards', 'cards_token_unique', 'token', 'UNIQUE'],
  ['cards', 'cards_pan_fingerprint_generation_unique', 'pan_fingerprint, pan_generation', 'UNIQUE'],
  ['payouts', 'payouts_creation_transaction_id_unique', 'creation_transaction_id', 'UNIQUE'],
  ['payouts', 'payouts_outcome_transaction_id_unique', 'outcome_transaction_id', 'UNIQUE'],
  ['bulk_payout_items', 'bulk_payout_items_bulk_payout_id_item_index_unique', 'bulk_payout_id, item_index', 'UNIQUE'],
  ['bulk_payout_items', 'bulk_payout_items_payout_id_unique', 'payout_id', 'UNIQUE'],
  ['webhook_delivery_attempts', 'webhook_delivery_attempts_delivery_id_attempt_unique', 'delivery_id, attempt', 'UNIQUE'],
];

const DIRECTORIES = `
  -- Account number → its business and account: one account per number across businesses.
  CREATE TABLE account_numbers (
    account_number text NOT NULL,
    business_id uuid NOT NULL,
    account_id uuid NOT NULL,
    CONSTRAINT account_numbers_pkey PRIMARY KEY (account_number),
    CONSTRAINT account_numbers_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id)
  );

  -- Card token → its business and card.
  CREATE TABLE card_tokens (
    token bigint NOT NULL,
    business_id uuid NOT NULL,
    card_id uuid NOT NULL,
    CONSTRAINT card_tokens_pkey PRIMARY KEY (token),
    CONSTRAINT card_tokens_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id)
  );

  -- PAN fingerprint and generation → its business and card: a PAN is drawn once across
  -- businesses; a replacement that keeps it is the next generation.
  CREATE TABLE card_pans (
    pan_fingerprint text NOT NULL,
    pan_generation integer NOT NULL,
    business_id uuid NOT NULL,
    card_id uuid NOT NULL,
    CONSTRAINT card_pans_pkey PRIMARY KEY (pan_fingerprint, pan_generation),
    CONSTRAINT card_pans_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id)
  );

  INSERT INTO account_numbers (account_number, business_id, account_id) SELECT account_number, business_id, id FROM accounts;
  INSERT INTO card_tokens (token, business_id, card_id) SELECT token, business_id, id FROM cards;
  INSERT INTO card_pans (pan_fingerprint, pan_generation, business_id, card_id)
    SELECT pan_fingerprint, pan_generation, business_id, id FROM cards;
`;

export async function up(knex: Knex): Promise<void> {
  const ddl: string[] = [];
  for (const [table, name] of FOREIGN_KEYS) ddl.push(`ALTER TABLE ${table} DROP CONSTRAINT ${name};`);
  ddl.push(
    `UPDATE idempotency_keys SET business_id = '${PLATFORM_BUSINESS}' WHERE business_id IS NULL;`,
    'ALTER TABLE idempotency_keys ALTER COLUMN business_id SET NOT NULL;',
    'ALTER TABLE outbox_events ALTER COLUMN business_id SET NOT NULL;',
    'ALTER TABLE outbox_pending ALTER COLUMN business_id SET NOT NULL;',
  );
  for (const table of ID_KEYED) {
    ddl.push(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey, ADD CONSTRAINT ${table}_pkey PRIMARY KEY (id, business_id);`);
  }
  for (const [table, name, columns, kind] of OTHER_KEYS) {
    ddl.push(`ALTER TABLE ${table} DROP CONSTRAINT ${name}, ADD CONSTRAINT ${name} ${kind} (${columns}, business_id);`);
  }
  // Partial unique indexes: recreated under their names.
  ddl.push(
    'DROP INDEX cards_replaces_card_id_unique;',
    'CREATE UNIQUE INDEX cards_replaces_card_id_unique ON cards (replaces_card_id, business_id) WHERE replaces_card_id IS NOT NULL;',
    'DROP INDEX webhook_deliveries_once;',
    "CREATE UNIQUE INDEX webhook_deliveries_once ON webhook_deliveries (event_id, endpoint_id, business_id) WHERE kind = 'EVENT';",
  );
  for (const [table, name, column, referenced] of FOREIGN_KEYS) {
    ddl.push(`ALTER TABLE ${table} ADD CONSTRAINT ${name} FOREIGN KEY (business_id, ${column}) REFERENCES ${referenced} (business_id, id);`);
  }
  await knex.raw(ddl.join('\n'));
  await knex.raw(DIRECTORIES);
}

export async function down(): Promise<void> {
  throw new Error('025_business_keys is not undone: restore the database from before it instead');
}
