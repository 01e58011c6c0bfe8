/**
 * Initial schema: clients, businesses, labels, ledger accounts (operational,
 * settlement and wallet accounts), ledger transactions and entries,
 * idempotency keys, webhook endpoints and the event outbox.
 *
 * Money is `numeric(20,2)`: exactly the API's two-decimal strings, no float.
 * Timestamps are `timestamptz(3)`, the API's millisecond precision, so that
 * cursors built from them round-trip exactly.
 * The database itself guards the ledger: entries are immutable, every ledger
 * transaction's entries sum to zero (checked at commit), and balances that may
 * not go negative are CHECK constraints.
 */
import type { Knex } from 'knex';

const TS = { useTz: true, precision: 3 } as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('settings', (t) => {
    t.text('key').primary();
    t.text('value').notNullable();
  });

  await knex.schema.createTable('businesses', (t) => {
    t.uuid('id').primary();
    t.text('name').notNullable();
    t.text('external_reference');
    t.text('status').notNullable().defaultTo('ACTIVE');
    t.specificType('currency', 'char(3)').notNullable();
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.index(['created_at', 'id']);
  });

  await knex.schema.createTable('api_clients', (t) => {
    t.uuid('id').primary();
    t.text('client_id').notNullable().unique();
    t.text('secret_hash').notNullable();
    t.text('kind').notNullable().checkIn(['PLATFORM', 'BUSINESS']);
    t.uuid('business_id').references('businesses.id');
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
  });

  await knex.schema.createTable('labels', (t) => {
    t.uuid('id').primary();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.text('name').notNullable();
    t.text('description');
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.unique(['business_id', 'name']);
    t.index(['business_id', 'created_at', 'id']);
  });

  await knex.raw('CREATE SEQUENCE account_number_seq START 1');
  await knex.raw('CREATE SEQUENCE transaction_reference_seq START 1');

  await knex.schema.createTable('accounts', (t) => {
    t.uuid('id').primary();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.text('kind').notNullable().checkIn(['OPERATIONAL', 'SETTLEMENT', 'WALLET']);
    t.text('account_number').notNullable().unique();
    t.specificType('currency', 'char(3)').notNullable();
    t.decimal('balance', 20, 2).notNullable().defaultTo(0);
    t.boolean('can_overdraft').notNullable().defaultTo(false);
    t.text('status').notNullable().defaultTo('ACTIVE');
    t.text('name');
    t.uuid('label_id').references('labels.id');
    t.text('external_reference');
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.index(['business_id', 'kind', 'created_at', 'id']);
    t.index(['business_id', 'name']);
  });
  await knex.raw(`ALTER TABLE accounts ADD CONSTRAINT accounts_no_forbidden_overdraft
    CHECK (kind = 'SETTLEMENT' OR can_overdraft OR balance >= 0)`);
  await knex.raw(`CREATE UNIQUE INDEX accounts_one_operational_per_business
    ON accounts (business_id, kind) WHERE kind IN ('OPERATIONAL', 'SETTLEMENT')`);

  await knex.schema.createTable('transactions', (t) => {
    t.uuid('id').primary();
    t.text('reference').notNullable().unique();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.text('type').notNullable().checkIn(['TOPUP', 'FUND', 'PAYOUT', 'TRANSFER', 'WITHDRAWAL', 'REFUND', 'REVERSAL']);
    t.text('status').notNullable();
    t.decimal('amount', 20, 2).notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.uuid('debit_account_id').notNullable().references('accounts.id');
    t.uuid('credit_account_id').notNullable().references('accounts.id');
    t.text('external_reference');
    t.text('notes');
    t.uuid('original_transaction_id').references('transactions.id');
    t.uuid('reversal_transaction_id').references('transactions.id');
    t.decimal('refunded_amount', 20, 2).notNullable().defaultTo(0);
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.index(['business_id', 'created_at', 'id']);
    t.index(['debit_account_id', 'created_at', 'id']);
    t.index(['credit_account_id', 'created_at', 'id']);
    t.index(['original_transaction_id']);
  });
  await knex.raw(`ALTER TABLE transactions
    ADD CONSTRAINT transactions_amount_positive CHECK (amount > 0),
    ADD CONSTRAINT transactions_refund_cap CHECK (refunded_amount >= 0 AND refunded_amount <= amount),
    ADD CONSTRAINT transactions_two_sides CHECK (debit_account_id <> credit_account_id)`);

  await knex.schema.createTable('ledger_entries', (t) => {
    t.bigIncrements('id').primary();
    t.uuid('transaction_id').notNullable().references('transactions.id');
    t.uuid('account_id').notNullable().references('accounts.id');
    t.decimal('amount', 20, 2).notNullable();
    t.decimal('balance_after', 20, 2).notNullable();
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.index(['account_id', 'id']);
    t.index(['transaction_id']);
  });
  await knex.raw('ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_non_zero CHECK (amount <> 0)');
  await knex.raw(`
    CREATE FUNCTION ledger_entries_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'ledger entries are immutable';
    END $$;
    CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE OR DELETE ON ledger_entries
      FOR EACH ROW EXECUTE FUNCTION ledger_entries_immutable();

    CREATE FUNCTION ledger_transaction_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE total numeric;
    BEGIN
      SELECT COALESCE(SUM(amount), 0) INTO total FROM ledger_entries WHERE transaction_id = NEW.transaction_id;
      IF total <> 0 THEN
        RAISE EXCEPTION 'ledger transaction % is unbalanced by %', NEW.transaction_id, total;
      END IF;
      RETURN NULL;
    END $$;
    CREATE CONSTRAINT TRIGGER ledger_entries_balanced AFTER INSERT ON ledger_entries
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_transaction_balanced();
  `);

  await knex.schema.createTable('idempotency_keys', (t) => {
    t.uuid('id').primary();
    t.text('scope').notNullable();
    t.text('key').notNullable();
    t.text('request_hash').notNullable();
    t.text('state').notNullable().checkIn(['IN_PROGRESS', 'COMPLETED']);
    t.integer('response_status');
    t.jsonb('response_body');
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('expires_at', TS).notNullable();
    t.unique(['scope', 'key']);
  });

  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.uuid('id').primary();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.text('url').notNullable();
    t.text('secret').notNullable();
    t.jsonb('events').notNullable();
    t.text('status').notNullable();
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.index(['business_id', 'created_at', 'id']);
  });

  // Transactional outbox: written in the same database transaction as the change.
  await knex.schema.createTable('outbox_events', (t) => {
    t.uuid('id').primary();
    t.uuid('business_id').references('businesses.id');
    t.text('code').notNullable();
    t.jsonb('data').notNullable();
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('dispatched_at', TS);
    t.index(['dispatched_at', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['outbox_events', 'webhook_endpoints', 'idempotency_keys', 'ledger_entries', 'transactions', 'accounts', 'labels', 'api_clients', 'businesses', 'settings']) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.raw('DROP SEQUENCE IF EXISTS account_number_seq; DROP SEQUENCE IF EXISTS transaction_reference_seq');
  await knex.raw('DROP FUNCTION IF EXISTS ledger_entries_immutable(); DROP FUNCTION IF EXISTS ledger_transaction_balanced()');
}
