/**
 * The closed loop's four account-to-account movements (FUND, PAYOUT, WITHDRAWAL,
 * TRANSFER) posted by `ledger_move` itself, without the layers that later
 * migrations stacked in front of 003's function (performance).
 *
 * Before: ledger_move (013, card purchases) → ledger_move_base (011, customer
 * payouts) → ledger_move_closed_loop (003) → ledger_uuid ×2, ledger_lock_pair,
 * ledger_amount_problem → ledger_post. Each PL/pgSQL call copies its arguments
 * and each SQL-language helper is a call of its own; measured with pgbench
 * (40 clients, the reference server's transfer statement beside it), that
 * chain cost about a fifth of the database's throughput for a transfer.
 * Now `ledger_move` locks and checks these four types in its own body and
 * posts with `ledger_post`, which keeps the balance rules in one place. Every
 * other type goes to the function this migration renames
 * `ledger_move_cards` (013's, unchanged), so payouts, card purchases, top-ups,
 * refunds and reversals behave exactly as before; `ledger_move_keyed` calls
 * `ledger_move` by name and gets the direct path with no change.
 *
 * The rules and refusals are 003's, in the same order and with the same
 * messages: SAME_WALLET_TRANSFER (the two ids as sent), WALLET_NOT_FOUND (not a
 * uuid, unknown, of another business, or not a wallet), BUSINESS_NOT_FOUND (no
 * operational account), VALIDATION_ERROR for the amount (/amount), then
 * ledger_post's WALLET_NOT_ACTIVE, INSUFFICIENT_FUNDS and
 * BALANCE_LIMIT_EXCEEDED. Both accounts are locked lower id first, as
 * ledger_lock_pair locks them, which this migration also rewrites (lockPair).
 */
import type { Knex } from 'knex';

/**
 * ledger_lock_pair (002): the same locks in the same order, taken by two single-row
 * statements (\`direct\`) rather than by a loop over one ordered FOR UPDATE query: the
 * loop runs a cursor, which measured about 0.3 ms of database CPU more per movement
 * with 40 clients. A NULL or unknown id, or one of another business, stays NULL; the
 * same id twice is one account, returned as \`a\`.
 */
function lockPair(direct: boolean): string {
  const body = direct
    ? `SELECT * INTO r FROM accounts WHERE id = least(p_a, p_b) AND business_id = p_business FOR UPDATE;
      IF r.id = p_a THEN a := r; ELSIF r.id IS NOT NULL THEN b := r; END IF;
      IF p_a <> p_b THEN
        SELECT * INTO r FROM accounts WHERE id = greatest(p_a, p_b) AND business_id = p_business FOR UPDATE;
        IF r.id = p_a THEN a := r; ELSIF r.id IS NOT NULL THEN b := r; END IF;
      END IF;`
    : `FOR r IN SELECT * FROM accounts WHERE id IN (p_a, p_b) AND business_id = p_business ORDER BY id FOR UPDATE LOOP
        IF r.id = p_a THEN a := r; ELSE b := r; END IF;
      END LOOP;`;
  return `
    CREATE OR REPLACE FUNCTION ledger_lock_pair(p_business uuid, p_a uuid, p_b uuid, OUT a accounts, OUT b accounts)
    LANGUAGE plpgsql AS $$
    DECLARE
      r accounts;
    BEGIN
      ${body}
    END $$;`;
}

const UUID = `'^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER FUNCTION ledger_move(uuid, text, jsonb) RENAME TO ledger_move_cards;

    CREATE FUNCTION ledger_move(p_business uuid, p_type text, r jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
    DECLARE
      wallet_field text;   -- the request field naming the (first) wallet
      wallet_id uuid;      -- that wallet
      other_id uuid;       -- the destination wallet (TRANSFER) or the operational account
      acc accounts;
      wallet accounts;
      other accounts;
      amount text := r->>'amount';
    BEGIN
      IF p_type NOT IN ('FUND', 'PAYOUT', 'WITHDRAWAL', 'TRANSFER') THEN
        RETURN ledger_move_cards(p_business, p_type, r);
      END IF;
      IF p_type = 'TRANSFER' THEN
        IF r->>'source_wallet_id' = r->>'destination_wallet_id' THEN
          RETURN ledger_refusal('SAME_WALLET_TRANSFER', 'The source and destination wallets must differ.');
        END IF;
        wallet_field := 'source_wallet_id';
        other_id := CASE WHEN r->>'destination_wallet_id' ~ ${UUID} THEN (r->>'destination_wallet_id')::uuid END;
      ELSE
        wallet_field := 'wallet_id';
        SELECT id INTO other_id FROM accounts WHERE business_id = p_business AND kind = 'OPERATIONAL';
      END IF;
      wallet_id := CASE WHEN r->>wallet_field ~ ${UUID} THEN (r->>wallet_field)::uuid END;

      -- Both accounts locked lower id first, each by its own statement (see ledger_lock_pair below).
      SELECT * INTO acc FROM accounts WHERE id = least(wallet_id, other_id) AND business_id = p_business FOR UPDATE;
      IF acc.id = wallet_id THEN wallet := acc; ELSIF acc.id IS NOT NULL THEN other := acc; END IF;
      IF wallet_id <> other_id THEN
        SELECT * INTO acc FROM accounts WHERE id = greatest(wallet_id, other_id) AND business_id = p_business FOR UPDATE;
        IF acc.id = wallet_id THEN wallet := acc; ELSIF acc.id IS NOT NULL THEN other := acc; END IF;
      END IF;
      IF wallet.id IS NULL OR wallet.kind <> 'WALLET' THEN
        RETURN ledger_refusal('WALLET_NOT_FOUND', format('No wallet %s for this business.', r->>wallet_field));
      END IF;
      IF p_type = 'TRANSFER' AND (other.id IS NULL OR other.kind <> 'WALLET') THEN
        RETURN ledger_refusal('WALLET_NOT_FOUND', format('No wallet %s for this business.', r->>'destination_wallet_id'));
      END IF;
      IF other.id IS NULL THEN
        RETURN ledger_refusal('BUSINESS_NOT_FOUND', format('No business %s.', p_business));
      END IF;
      IF amount IS NULL OR amount !~ '^[0-9]{1,15}([.][0-9]{1,2}){0,1}$' THEN
        RETURN ledger_refusal('VALIDATION_ERROR', 'must be a decimal string with at most two decimals', '/amount');
      END IF;
      IF amount::numeric <= 0 THEN
        RETURN ledger_refusal('VALIDATION_ERROR', 'must be greater than 0', '/amount');
      END IF;

      IF p_type IN ('FUND', 'PAYOUT') THEN  -- operational account → wallet
        RETURN ledger_post(p_business, p_type, other, wallet, round(amount::numeric, 2),
                           coalesce(r->>'currency', wallet.currency), r->>'external_reference', r->>'notes');
      END IF;
      -- wallet → operational account (WITHDRAWAL), source → destination (TRANSFER)
      RETURN ledger_post(p_business, p_type, wallet, other, round(amount::numeric, 2),
                         coalesce(r->>'currency', other.currency), r->>'external_reference', r->>'notes');
    END $$;

    ${lockPair(true)}
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP FUNCTION ledger_move(uuid, text, jsonb);
    ALTER FUNCTION ledger_move_cards(uuid, text, jsonb) RENAME TO ledger_move;
    ${lockPair(false)}
  `);
}
