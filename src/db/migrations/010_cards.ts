/**
 * Cards (core API, issue 9, slice 1): card issuances, cards and the OTP
 * sessions of card steps (displaying the sensitive data).
 *
 * A card's PAN, CVV and PIN are never stored in clear: each is sealed with
 * AES-256-GCM (src/cards/data.ts) with the version of its key beside it
 * (`<field>_key_version`), so keys rotate. PAN uniqueness is a unique index on
 * the keyed fingerprint `pan_fingerprint`. Tokens come from a sequence, so they
 * are unique by construction and say nothing about the PAN.
 */
import type { Knex } from 'knex';

const TS = { useTz: true, precision: 3 } as const;

export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE SEQUENCE card_token_seq START WITH 1000000001');

  await knex.schema.createTable('card_issuances', (t) => {
    t.uuid('id').primary();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.uuid('customer_id').notNullable().references('customers.id');
    t.uuid('account_id').notNullable().references('accounts.id');
    t.text('idempotency_key').notNullable();
    t.text('card_type').notNullable().checkIn(['VIRTUAL', 'PHYSICAL']);
    t.text('design').notNullable();
    t.text('status').notNullable();
    t.uuid('otp_operation_id').references('otp_operations.id');
    t.uuid('card_id');
    t.timestamp('expires_at', TS).notNullable();
    t.timestamp('issued_at', TS);
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.unique(['business_id', 'idempotency_key']);
    t.index(['customer_id']);
  });

  await knex.schema.createTable('cards', (t) => {
    t.uuid('id').primary();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.uuid('customer_id').notNullable().references('customers.id');
    t.uuid('account_id').notNullable().references('accounts.id');
    t.uuid('issuance_id').notNullable().references('card_issuances.id');
    t.bigInteger('token').notNullable().unique().defaultTo(knex.raw("nextval('card_token_seq')"));
    t.text('type').notNullable().checkIn(['VIRTUAL', 'PHYSICAL']);
    t.text('status').notNullable();
    t.text('design').notNullable();
    t.text('last_4_digits').notNullable();
    t.text('expiry_date').notNullable();
    t.text('pan_fingerprint').notNullable().unique();
    t.text('pan_sealed').notNullable();
    t.integer('pan_key_version').notNullable();
    t.text('cvv_sealed').notNullable();
    t.integer('cvv_key_version').notNullable();
    t.text('pin_sealed');
    t.integer('pin_key_version');
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.index(['business_id', 'customer_id']);
  });
  await knex.raw(`ALTER TABLE cards
    ADD CONSTRAINT cards_expiry_date_format CHECK (expiry_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
    ADD CONSTRAINT cards_last_4_digits_format CHECK (last_4_digits ~ '^[0-9]{4}$'),
    ADD CONSTRAINT cards_pin_sealed_with_version CHECK ((pin_sealed IS NULL) = (pin_key_version IS NULL))`);
  await knex.schema.alterTable('card_issuances', (t) => t.foreign('card_id').references('cards.id'));

  // A card step confirmed by an OTP: the session id is what E6 takes as `session_id`.
  await knex.schema.createTable('card_otp_sessions', (t) => {
    t.uuid('id').primary();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.uuid('card_id').notNullable().references('cards.id');
    t.text('purpose').notNullable().checkIn(['DISPLAY_SENSITIVE_DATA']);
    t.uuid('otp_operation_id').notNullable().references('otp_operations.id');
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.index(['card_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('card_otp_sessions');
  await knex.schema.alterTable('card_issuances', (t) => t.dropForeign(['card_id']));
  await knex.schema.dropTableIfExists('cards');
  await knex.schema.dropTableIfExists('card_issuances');
  await knex.raw('DROP SEQUENCE IF EXISTS card_token_seq');
}
