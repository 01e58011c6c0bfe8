/**
 * The closed loop's movements of money in PL/pgSQL, each one call of
 * `ledger_move` (one statement, one round trip; 004 adds the same under an
 * Idempotency-Key).
 *
 * `ledger_move(business, type, request)` takes the API request body as JSON
 * (already validated against the document), locks the accounts (and, for a
 * refund or reversal, the original transaction first), checks the movement's
 * own rules and posts with `ledger_post` (002), with the refusals in the order
 * the TypeScript movements checked them (src/ledger/movements.ts history):
 *   FUND, PAYOUT   operational account → wallet_id
 *   WITHDRAWAL     wallet_id → operational account
 *   TRANSFER       source_wallet_id → destination_wallet_id (SAME_WALLET_TRANSFER)
 *   TOPUP          settlement account → operational account, plus the
 *                  `topup.complete` event in the outbox, in the same transaction
 *   REFUND         wallet (default: the payout's receiver) → operational account;
 *                  linked to a payout (original_transaction_id): the payout row is
 *                  locked first and its refunded total may not exceed its amount
 *   REVERSAL       the original's amount back from its credit to its debit side,
 *                  once; not for payouts with refunds
 * Refusals: VALIDATION_ERROR, WALLET_NOT_FOUND, BUSINESS_NOT_FOUND,
 * TRANSACTION_NOT_FOUND, SAME_WALLET_TRANSFER, TRANSACTION_NOT_REFUNDABLE,
 * REFUND_EXCEEDS_ORIGINAL, TRANSACTION_ALREADY_REVERSED,
 * TRANSACTION_NOT_REVERSIBLE, plus ledger_post's; all are decided before the
 * first write, so a refusal has changed nothing.
 * The result is ledger_post's posting or refusal; a refund's posting adds
 * `original`: null, or {reference, amount, refunded_amount (the new running total)}.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- Locks and returns the business's transaction p_id (NULL when there is none).
    CREATE FUNCTION ledger_lock_transaction(p_business uuid, p_id text) RETURNS transactions LANGUAGE sql AS $$
      SELECT * FROM transactions WHERE id = ledger_uuid(p_id) AND business_id = p_business FOR UPDATE
    $$;

    -- Refund (see the header of this migration).
    CREATE FUNCTION ledger_refund(p_business uuid, r jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
    DECLARE
      problem text := ledger_amount_problem(r->>'amount');
      v_amount numeric;
      o transactions;
      wallet_id text;
      locked record;
      wallet accounts;
      operational accounts;
      posting jsonb;
    BEGIN
      IF problem IS NOT NULL THEN
        RETURN ledger_refusal('VALIDATION_ERROR', problem, '/amount');
      END IF;
      v_amount := round((r->>'amount')::numeric, 2);
      IF r->>'original_transaction_id' IS NULL AND r->>'wallet_id' IS NULL THEN
        RETURN ledger_refusal('VALIDATION_ERROR', 'is required when original_transaction_id is absent', '/wallet_id');
      END IF;
      IF r->>'original_transaction_id' IS NOT NULL THEN
        o := ledger_lock_transaction(p_business, r->>'original_transaction_id');
        IF o.id IS NULL THEN
          RETURN ledger_refusal('TRANSACTION_NOT_FOUND', format('No transaction %s for this business.', r->>'original_transaction_id'));
        END IF;
        IF o.type <> 'PAYOUT' THEN
          RETURN ledger_refusal('TRANSACTION_NOT_REFUNDABLE', format('Only payouts can be refunded; %s is a %s.', o.reference, o.type));
        END IF;
        IF o.reversal_transaction_id IS NOT NULL THEN
          RETURN ledger_refusal('TRANSACTION_NOT_REFUNDABLE', format('Payout %s has been reversed.', o.reference));
        END IF;
        IF o.refunded_amount + v_amount > o.amount THEN
          RETURN ledger_refusal('REFUND_EXCEEDS_ORIGINAL', format('Payout %s of %s has %s refunded; %s more would exceed it.',
            o.reference, o.amount, o.refunded_amount, v_amount));
        END IF;
      END IF;
      wallet_id := coalesce(r->>'wallet_id', o.credit_account_id::text);
      locked := ledger_lock_pair(p_business, ledger_uuid(wallet_id),
        (SELECT id FROM accounts WHERE business_id = p_business AND kind = 'OPERATIONAL'));
      wallet := locked.a;
      operational := locked.b;
      IF wallet.id IS NULL OR wallet.kind <> 'WALLET' THEN
        RETURN ledger_refusal('WALLET_NOT_FOUND', format('No wallet %s for this business.', wallet_id));
      END IF;
      IF operational.id IS NULL THEN
        RETURN ledger_refusal('BUSINESS_NOT_FOUND', format('No business %s.', p_business));
      END IF;
      posting := ledger_post(p_business, 'REFUND', wallet, operational, v_amount, wallet.currency,
                             r->>'external_reference', r->>'notes', o.id);
      IF posting->'refusal' IS NOT NULL THEN
        RETURN posting;
      END IF;
      IF o.id IS NULL THEN
        RETURN posting || jsonb_build_object('original', NULL);
      END IF;
      UPDATE transactions SET refunded_amount = refunded_amount + v_amount WHERE id = o.id;
      RETURN posting || jsonb_build_object('original', jsonb_build_object(
        'reference', o.reference, 'amount', o.amount::text, 'refunded_amount', (o.refunded_amount + v_amount)::text));
    END $$;

    -- Reversal (see the header of this migration).
    CREATE FUNCTION ledger_reverse(p_business uuid, r jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
    DECLARE
      o transactions := ledger_lock_transaction(p_business, r->>'original_transaction_id');
      locked record;
      d accounts;
      c accounts;
      posting jsonb;
    BEGIN
      IF o.id IS NULL THEN
        RETURN ledger_refusal('TRANSACTION_NOT_FOUND', format('No transaction %s for this business.', r->>'original_transaction_id'));
      END IF;
      IF o.reversal_transaction_id IS NOT NULL THEN
        RETURN ledger_refusal('TRANSACTION_ALREADY_REVERSED', format('Transaction %s has already been reversed.', o.reference));
      END IF;
      IF o.type NOT IN ('FUND', 'PAYOUT', 'TRANSFER', 'WITHDRAWAL') THEN
        RETURN ledger_refusal('TRANSACTION_NOT_REVERSIBLE',
          format('A %s cannot be reversed; reversible types: FUND, PAYOUT, TRANSFER, WITHDRAWAL.', o.type));
      END IF;
      IF o.refunded_amount > 0 THEN
        RETURN ledger_refusal('TRANSACTION_NOT_REVERSIBLE', format('Payout %s has refunds; refund the remainder instead.', o.reference));
      END IF;
      locked := ledger_lock_pair(p_business, o.credit_account_id, o.debit_account_id);
      d := locked.a;
      c := locked.b;
      posting := ledger_post(p_business, 'REVERSAL', d, c, o.amount, o.currency, r->>'external_reference', r->>'notes', o.id);
      IF posting->'refusal' IS NULL THEN
        UPDATE transactions SET reversal_transaction_id = (posting->>'id')::uuid WHERE id = o.id;
      END IF;
      RETURN posting;
    END $$;

    -- One movement of money of business p_business (see the header of this migration).
    CREATE FUNCTION ledger_move(p_business uuid, p_type text, r jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
    DECLARE
      wallet_side text;                  -- the request field naming the first wallet
      other_side text;                   -- the second wallet's field (transfers), or NULL
      business_kind text;                -- the business account on the other side, or NULL
      one_id uuid;
      other_id uuid;
      locked record;
      one accounts;
      other accounts;
      debit accounts;
      credit accounts;
      problem text;
      posting jsonb;
    BEGIN
      CASE p_type
      WHEN 'FUND', 'PAYOUT', 'WITHDRAWAL' THEN
        wallet_side := 'wallet_id';
        business_kind := 'OPERATIONAL';
      WHEN 'TRANSFER' THEN
        IF r->>'source_wallet_id' = r->>'destination_wallet_id' THEN
          RETURN ledger_refusal('SAME_WALLET_TRANSFER', 'The source and destination wallets must differ.');
        END IF;
        wallet_side := 'source_wallet_id';
        other_side := 'destination_wallet_id';
      WHEN 'TOPUP' THEN
        business_kind := 'SETTLEMENT';
      WHEN 'REFUND' THEN
        RETURN ledger_refund(p_business, r);
      WHEN 'REVERSAL' THEN
        RETURN ledger_reverse(p_business, r);
      ELSE
        RAISE EXCEPTION 'ledger_move: unknown movement type %', p_type;
      END CASE;

      -- The two accounts, locked in one statement: wallets from the request, business accounts by kind.
      one_id := CASE WHEN wallet_side IS NULL
                       THEN (SELECT id FROM accounts WHERE business_id = p_business AND kind = business_kind)
                       ELSE ledger_uuid(r->>wallet_side) END;
      other_id := CASE WHEN other_side IS NOT NULL THEN ledger_uuid(r->>other_side)
                        ELSE (SELECT id FROM accounts WHERE business_id = p_business AND kind = 'OPERATIONAL') END;
      locked := ledger_lock_pair(p_business, one_id, other_id);
      one := locked.a;
      other := locked.b;
      IF wallet_side IS NOT NULL AND (one.id IS NULL OR one.kind <> 'WALLET') THEN
        RETURN ledger_refusal('WALLET_NOT_FOUND', format('No wallet %s for this business.', r->>wallet_side));
      END IF;
      IF other_side IS NOT NULL AND (other.id IS NULL OR other.kind <> 'WALLET') THEN
        RETURN ledger_refusal('WALLET_NOT_FOUND', format('No wallet %s for this business.', r->>other_side));
      END IF;
      IF one.id IS NULL OR other.id IS NULL THEN
        RETURN ledger_refusal('BUSINESS_NOT_FOUND', format('No business %s.', p_business));
      END IF;
      problem := ledger_amount_problem(r->>'amount');
      IF problem IS NOT NULL THEN
        RETURN ledger_refusal('VALIDATION_ERROR', problem, '/amount');
      END IF;

      IF p_type IN ('FUND', 'PAYOUT') THEN
        debit := other;   -- operational account → wallet
        credit := one;
      ELSE
        debit := one;     -- wallet → operational account, source → destination, settlement → operational
        credit := other;
      END IF;
      posting := ledger_post(p_business, p_type, debit, credit, round((r->>'amount')::numeric, 2),
                             coalesce(r->>'currency', credit.currency), r->>'external_reference', r->>'notes');
      IF p_type = 'TOPUP' AND posting->'refusal' IS NULL THEN
        INSERT INTO outbox_events (id, business_id, code, data)
        VALUES (gen_random_uuid(), p_business, 'topup.complete', jsonb_build_object(
          'transaction_id', posting->'id', 'business_id', p_business, 'amount', posting->'amount', 'currency', posting->'currency',
          'completed_at', to_char((posting->>'created_at')::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')));
      END IF;
      RETURN posting;
    END $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP FUNCTION IF EXISTS ledger_move(uuid, text, jsonb);
    DROP FUNCTION IF EXISTS ledger_reverse(uuid, jsonb);
    DROP FUNCTION IF EXISTS ledger_refund(uuid, jsonb);
    DROP FUNCTION IF EXISTS ledger_lock_transaction(uuid, text);
  `);
}
