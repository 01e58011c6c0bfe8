/**
 * Card purchases in the ledger (card transaction simulator): the
 * transaction type CARD_PURCHASE, one more `ledger_move` movement:
 *   CARD_PURCHASE  wallet_id → settlement account (the money leaves the closed
 *                  loop to the card network, as a top-up's enters from it)
 * with `ledger_post`'s rules and refusals (WALLET_NOT_ACTIVE,
 * INSUFFICIENT_FUNDS, ...) returned, never raised, and the amount checked like
 * every movement's (VALIDATION_ERROR).
 *
 * `ledger_move` is extended, not rewritten: the existing function is kept under
 * the name `ledger_move_base` and a new `ledger_move` posts CARD_PURCHASE and
 * hands every other type to it, so the movements of other migrations (and
 * `ledger_move_keyed`, which calls `ledger_move` by name) are unchanged.
 */
import type { Knex } from 'knex';

/** The transaction types before this migration (001, and 011's customer payouts). */
const TYPES = ['TOPUP', 'FUND', 'PAYOUT', 'TRANSFER', 'WITHDRAWAL', 'REFUND', 'REVERSAL', 'CUSTOMER_PAYOUT', 'CUSTOMER_PAYOUT_COMPLETION', 'CUSTOMER_PAYOUT_RETURN'];

export async function up(knex: Knex): Promise<void> {
  const types = (list: string[]) => list.map((t) => `'${t}'`).join(', ');
  await knex.raw(`
    ALTER TABLE transactions DROP CONSTRAINT transactions_type_check;
    ALTER TABLE transactions ADD CONSTRAINT transactions_type_check CHECK (type IN (${types([...TYPES, 'CARD_PURCHASE'])}));
    ALTER FUNCTION ledger_move(uuid, text, jsonb) RENAME TO ledger_move_base;

    CREATE FUNCTION ledger_move(p_business uuid, p_type text, r jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
    DECLARE
      locked record;
      problem text;
    BEGIN
      IF p_type <> 'CARD_PURCHASE' THEN
        RETURN ledger_move_base(p_business, p_type, r);
      END IF;
      locked := ledger_lock_pair(p_business, ledger_uuid(r->>'wallet_id'),
                                 (SELECT id FROM accounts WHERE business_id = p_business AND kind = 'SETTLEMENT'));
      IF (locked.a).id IS NULL OR (locked.a).kind <> 'WALLET' THEN
        RETURN ledger_refusal('WALLET_NOT_FOUND', format('No wallet %s for this business.', r->>'wallet_id'));
      END IF;
      IF (locked.b).id IS NULL THEN
        RETURN ledger_refusal('BUSINESS_NOT_FOUND', format('No business %s.', p_business));
      END IF;
      problem := ledger_amount_problem(r->>'amount');
      IF problem IS NOT NULL THEN
        RETURN ledger_refusal('VALIDATION_ERROR', problem, '/amount');
      END IF;
      RETURN ledger_post(p_business, 'CARD_PURCHASE', locked.a, locked.b, round((r->>'amount')::numeric, 2),
                         coalesce(r->>'currency', (locked.a).currency), r->>'external_reference', r->>'notes');
    END $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP FUNCTION ledger_move(uuid, text, jsonb);
    ALTER FUNCTION ledger_move_base(uuid, text, jsonb) RENAME TO ledger_move;
    ALTER TABLE transactions DROP CONSTRAINT transactions_type_check;
    ALTER TABLE transactions ADD CONSTRAINT transactions_type_check CHECK (type IN (${TYPES.map((t) => `'${t}'`).join(', ')}));
  `);
}
