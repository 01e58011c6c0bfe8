/**
 * Cards, slice 2: the OTP-guarded card steps after issuance — set or
 * update the PIN, activate a physical card, convert a virtual card to a physical
 * one, replace a card — share `card_otp_sessions` by `purpose`; what a step will
 * do once its code is verified is kept on its session (the new PIN sealed like
 * the card's, the replacement reason).
 *
 * Replacement links cards both ways (`replaces_card_id`, `replaced_by_card_id`).
 * A damaged or expired card's replacement keeps its PAN: the PAN's fingerprint is
 * then shared by the cards of one line, so uniqueness moves from
 * `pan_fingerprint` alone to (`pan_fingerprint`, `pan_generation`): a newly
 * drawn PAN is generation 0 (so it clashes with every PAN ever drawn), a kept
 * one the generation after its predecessor's.
 *
 * Tokenization activation code requests (sandbox test helpers, seed E9): a
 * simulated token provisioning of a card into a device wallet, confirmed by a
 * code sent to the customer (verifyOtp) or by the issuer's phone line
 * (confirmIvr); src/cards/tokenization.ts.
 */
import type { Knex } from 'knex';

const TS = { useTz: true, precision: 3 } as const;
const PURPOSES = ['DISPLAY_SENSITIVE_DATA', 'SET_PIN', 'ACTIVATION', 'CONVERSION', 'REPLACEMENT'];
const REASONS = ['DAMAGED', 'EXPIRED', 'LOST', 'STOLEN'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('cards', (t) => {
    t.integer('pan_generation').notNullable().defaultTo(0);
    t.uuid('replaces_card_id').references('cards.id');
    t.uuid('replaced_by_card_id').references('cards.id');
    t.text('replacement_reason').checkIn(REASONS);
  });
  await knex.raw('ALTER TABLE cards DROP CONSTRAINT cards_pan_fingerprint_unique');
  await knex.raw('ALTER TABLE cards ADD CONSTRAINT cards_pan_fingerprint_generation_unique UNIQUE (pan_fingerprint, pan_generation)');
  await knex.raw('CREATE UNIQUE INDEX cards_replaces_card_id_unique ON cards (replaces_card_id) WHERE replaces_card_id IS NOT NULL');

  await knex.raw('ALTER TABLE card_otp_sessions DROP CONSTRAINT card_otp_sessions_purpose_check');
  await knex.schema.alterTable('card_otp_sessions', (t) => {
    t.text('pin_sealed');
    t.integer('pin_key_version');
    t.text('reason').checkIn(REASONS);
  });
  await knex.raw(`ALTER TABLE card_otp_sessions
    ADD CONSTRAINT card_otp_sessions_purpose_check CHECK (purpose IN (${PURPOSES.map((p) => `'${p}'`).join(', ')})),
    ADD CONSTRAINT card_otp_sessions_pin_with_version CHECK ((pin_sealed IS NULL) = (pin_key_version IS NULL)),
    ADD CONSTRAINT card_otp_sessions_pin_of_set_pin CHECK ((purpose = 'SET_PIN') = (pin_sealed IS NOT NULL)),
    ADD CONSTRAINT card_otp_sessions_reason_of_replacement CHECK ((purpose = 'REPLACEMENT') = (reason IS NOT NULL))`);

  await knex.schema.createTable('tokenization_activation_requests', (t) => {
    t.uuid('id').primary();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.uuid('card_id').notNullable().references('cards.id');
    t.text('wallet').notNullable();
    t.text('device').notNullable();
    t.text('message_type').notNullable();
    t.text('status').notNullable();
    t.uuid('notification_id').notNullable();
    t.uuid('otp_operation_id').notNullable().references('otp_operations.id');
    t.text('verification_result');
    t.timestamp('otp_sent_at', TS).notNullable();
    t.timestamp('otp_verified_at', TS);
    t.timestamp('ivr_completed_at', TS);
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.index(['business_id', 'card_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('tokenization_activation_requests');
  await knex.raw(`ALTER TABLE card_otp_sessions
    DROP CONSTRAINT card_otp_sessions_purpose_check,
    DROP CONSTRAINT card_otp_sessions_pin_with_version,
    DROP CONSTRAINT card_otp_sessions_pin_of_set_pin,
    DROP CONSTRAINT card_otp_sessions_reason_of_replacement`);
  await knex.schema.alterTable('card_otp_sessions', (t) => {
    t.dropColumns('pin_sealed', 'pin_key_version', 'reason');
  });
  await knex.raw(`ALTER TABLE card_otp_sessions ADD CONSTRAINT card_otp_sessions_purpose_check CHECK (purpose IN ('DISPLAY_SENSITIVE_DATA'))`);
  await knex.raw('DROP INDEX cards_replaces_card_id_unique');
  await knex.raw('ALTER TABLE cards DROP CONSTRAINT cards_pan_fingerprint_generation_unique');
  await knex.raw('ALTER TABLE cards ADD CONSTRAINT cards_pan_fingerprint_unique UNIQUE (pan_fingerprint)');
  await knex.schema.alterTable('cards', (t) => {
    t.dropColumns('pan_generation', 'replaces_card_id', 'replaced_by_card_id', 'replacement_reason');
  });
}
