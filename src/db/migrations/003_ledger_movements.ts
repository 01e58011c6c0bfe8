/**
 * The closed loop's movements of money in PL/pgSQL, each one call of
 * `ledger_move` (one statement, one round trip), and `ledger_move_once`, the
 * same with an Idempotency-Key claimed in the same round trip.
 *
 * `idempotency_claim` claims an Idempotency-Key (for ledger_move_once, and for the
 * service when an operation fails before its ledger call).
 *
 * `ledger_move(business, type, request)` takes the API request body as JSON
 * (already validated against the document) and resolves the accounts, checks
 * the movement's own rules and posts with `ledger_post` (002), in the order
 * the TypeScript movements used (src/domain/movements.ts history):
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
 * Refusals (ledger_refuse, SQLSTATE LR000): VALIDATION_ERROR, WALLET_NOT_FOUND,
 * BUSINESS_NOT_FOUND, TRANSACTION_NOT_FOUND, SAME_WALLET_TRANSFER,
 * TRANSACTION_NOT_REFUNDABLE, REFUND_EXCEEDS_ORIGINAL, TRANSACTION_ALREADY_REVERSED,
 * TRANSACTION_NOT_REVERSIBLE, plus ledger_post's. A refusal changes nothing.
 * The result is ledger_post's posting JSON; a linked refund adds `original`
 * {reference, amount, refunded_amount (the new running total)}.
 */
import type { Knex } from 'knex';

const UUID = `'^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- The wallet p_id of business p_business (not locked: ledger_post locks it). Refuses WALLET_NOT_FOUND.
    CREATE FUNCTION ledger_wallet(p_business uuid, p_id text) RETURNS accounts LANGUAGE plpgsql AS $$
    DECLARE a accounts;
    BEGIN
      IF p_id ~ ${UUID} THEN
        SELECT * INTO a FROM accounts WHERE id = p_id::uuid AND business_id = p_business AND kind = 'WALLET';
      END IF;
      IF a.id IS NULL THEN
        PERFORM ledger_refuse('WALLET_NOT_FOUND', format('No wallet %s for this business.', p_id));
      END IF;
      RETURN a;
    END $$;

    -- The business's OPERATIONAL or SETTLEMENT account (not locked). Refuses BUSINESS_NOT_FOUND.
    CREATE FUNCTION ledger_business_account(p_business uuid, p_kind text) RETURNS accounts LANGUAGE plpgsql AS $$
    DECLARE a accounts;
    BEGIN
      SELECT * INTO a FROM accounts WHERE business_id = p_business AND kind = p_kind;
      IF a.id IS NULL THEN
        PERFORM ledger_refuse('BUSINESS_NOT_FOUND', format('No business %s.', p_business));
      END IF;
      RETURN a;
    END $$;

    -- Locks and returns the business's transaction p_id. Refuses TRANSACTION_NOT_FOUND.
    CREATE FUNCTION ledger_lock_transaction(p_business uuid, p_id text) RETURNS transactions LANGUAGE plpgsql AS $$
    DECLARE t transactions;
    BEGIN
      IF p_id ~ ${UUID} THEN
        SELECT * INTO t FROM transactions WHERE id = p_id::uuid AND business_id = p_business FOR UPDATE;
      END IF;
      IF t.id IS NULL THEN
        PERFORM ledger_refuse('TRANSACTION_NOT_FOUND', format('No transaction %s for this business.', p_id));
      END IF;
      RETURN t;
    END $$;

    -- Refund (see the header of this migration).
    CREATE FUNCTION ledger_refund(p_business uuid, r jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
    DECLARE
      amount numeric := ledger_amount(r->>'amount');
      o transactions;
      total numeric;
      wallet accounts;
      operational accounts;
    BEGIN
      IF r->>'original_transaction_id' IS NULL AND r->>'wallet_id' IS NULL THEN
        PERFORM ledger_refuse('VALIDATION_ERROR', 'is required when original_transaction_id is absent', '/wallet_id');
      END IF;
      IF r->>'original_transaction_id' IS NOT NULL THEN
        o := ledger_lock_transaction(p_business, r->>'original_transaction_id');
        IF o.type <> 'PAYOUT' THEN
          PERFORM ledger_refuse('TRANSACTION_NOT_REFUNDABLE', format('Only payouts can be refunded; %s is a %s.', o.reference, o.type));
        END IF;
        IF o.reversal_transaction_id IS NOT NULL THEN
          PERFORM ledger_refuse('TRANSACTION_NOT_REFUNDABLE', format('Payout %s has been reversed.', o.reference));
        END IF;
        total := o.refunded_amount + amount;
        IF total > o.amount THEN
          PERFORM ledger_refuse('REFUND_EXCEEDS_ORIGINAL', format('Payout %s of %s has %s refunded; %s more would exceed it.',
            o.reference, o.amount, o.refunded_amount, amount));
        END IF;
        UPDATE transactions SET refunded_amount = total WHERE id = o.id;
      END IF;
      wallet := ledger_wallet(p_business, coalesce(r->>'wallet_id', o.credit_account_id::text));
      operational := ledger_business_account(p_business, 'OPERATIONAL');
      RETURN ledger_post(p_business, 'REFUND', wallet.id, operational.id, amount, wallet.currency,
                         r->>'external_reference', r->>'notes', o.id)
        || jsonb_build_object('original', CASE WHEN o.id IS NULL THEN NULL
             ELSE jsonb_build_object('reference', o.reference, 'amount', o.amount::text, 'refunded_amount', total::text) END);
    END $$;

    -- Reversal (see the header of this migration).
    CREATE FUNCTION ledger_reverse(p_business uuid, r jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
    DECLARE
      o transactions := ledger_lock_transaction(p_business, r->>'original_transaction_id');
      posting jsonb;
    BEGIN
      IF o.reversal_transaction_id IS NOT NULL THEN
        PERFORM ledger_refuse('TRANSACTION_ALREADY_REVERSED', format('Transaction %s has already been reversed.', o.reference));
      END IF;
      IF o.type NOT IN ('FUND', 'PAYOUT', 'TRANSFER', 'WITHDRAWAL') THEN
        PERFORM ledger_refuse('TRANSACTION_NOT_REVERSIBLE',
          format('A %s cannot be reversed; reversible types: FUND, PAYOUT, TRANSFER, WITHDRAWAL.', o.type));
      END IF;
      IF o.refunded_amount > 0 THEN
        PERFORM ledger_refuse('TRANSACTION_NOT_REVERSIBLE', format('Payout %s has refunds; refund the remainder instead.', o.reference));
      END IF;
      posting := ledger_post(p_business, 'REVERSAL', o.credit_account_id, o.debit_account_id, o.amount, o.currency,
                             r->>'external_reference', r->>'notes', o.id);
      UPDATE transactions SET reversal_transaction_id = (posting->>'id')::uuid WHERE id = o.id;
      RETURN posting;
    END $$;

    -- One movement of money of business p_business (see the header of this migration).
    CREATE FUNCTION ledger_move(p_business uuid, p_type text, r jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
    DECLARE
      debit accounts;
      credit accounts;
      posting jsonb;
    BEGIN
      CASE p_type
      WHEN 'FUND', 'PAYOUT' THEN
        credit := ledger_wallet(p_business, r->>'wallet_id');
        debit := ledger_business_account(p_business, 'OPERATIONAL');
      WHEN 'WITHDRAWAL' THEN
        debit := ledger_wallet(p_business, r->>'wallet_id');
        credit := ledger_business_account(p_business, 'OPERATIONAL');
      WHEN 'TRANSFER' THEN
        IF r->>'source_wallet_id' = r->>'destination_wallet_id' THEN
          PERFORM ledger_refuse('SAME_WALLET_TRANSFER', 'The source and destination wallets must differ.');
        END IF;
        debit := ledger_wallet(p_business, r->>'source_wallet_id');
        credit := ledger_wallet(p_business, r->>'destination_wallet_id');
      WHEN 'TOPUP' THEN
        debit := ledger_business_account(p_business, 'SETTLEMENT');
        credit := ledger_business_account(p_business, 'OPERATIONAL');
      WHEN 'REFUND' THEN
        RETURN ledger_refund(p_business, r);
      WHEN 'REVERSAL' THEN
        RETURN ledger_reverse(p_business, r);
      ELSE
        RAISE EXCEPTION 'ledger_move: unknown movement type %', p_type;
      END CASE;
      posting := ledger_post(p_business, p_type, debit.id, credit.id, ledger_amount(r->>'amount'),
                             coalesce(r->>'currency', credit.currency), r->>'external_reference', r->>'notes');
      IF p_type = 'TOPUP' THEN
        INSERT INTO outbox_events (id, business_id, code, data)
        VALUES (gen_random_uuid(), p_business, 'topup.complete', jsonb_build_object(
          'transaction_id', posting->'id', 'business_id', p_business, 'amount', posting->'amount', 'currency', posting->'currency',
          'completed_at', to_char((posting->>'created_at')::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')));
      END IF;
      RETURN posting;
    END $$;

    -- Claims Idempotency-Key (p_scope, p_key) for the request whose fingerprint is p_hash,
    -- as row p_claim, IN_PROGRESS, kept p_ttl_seconds (src/http/idempotency.ts). A free or
    -- expired key, or one left IN_PROGRESS by the same request for over p_stale_seconds
    -- (its process died; the new id makes the old claim unable to complete), is taken:
    -- returns NULL. Otherwise returns the key as an earlier request left it,
    -- {request_hash, state, response}; ON CONFLICT keeps that row locked until the
    -- transaction ends.
    CREATE FUNCTION idempotency_claim(
      p_claim uuid, p_scope text, p_key text, p_hash text, p_ttl_seconds int, p_stale_seconds int
    ) RETURNS jsonb LANGUAGE plpgsql AS $$
    DECLARE
      claimed uuid;
      held idempotency_keys;
    BEGIN
      INSERT INTO idempotency_keys (id, scope, key, request_hash, state, expires_at)
      VALUES (p_claim, p_scope, p_key, p_hash, 'IN_PROGRESS', now() + make_interval(secs => p_ttl_seconds))
      ON CONFLICT (scope, key) DO UPDATE
        SET id = EXCLUDED.id, request_hash = EXCLUDED.request_hash, state = 'IN_PROGRESS',
            response_status = NULL, response_body = NULL, created_at = now(), expires_at = EXCLUDED.expires_at
        WHERE idempotency_keys.expires_at < now()
           OR (idempotency_keys.state = 'IN_PROGRESS' AND idempotency_keys.request_hash = EXCLUDED.request_hash
               AND idempotency_keys.created_at < now() - make_interval(secs => p_stale_seconds))
      RETURNING id INTO claimed;
      IF claimed IS NOT NULL THEN
        RETURN NULL;
      END IF;
      SELECT * INTO held FROM idempotency_keys WHERE scope = p_scope AND key = p_key;
      RETURN jsonb_build_object('request_hash', held.request_hash, 'state', held.state, 'response', held.response_body);
    END $$;

    -- ledger_move under an Idempotency-Key, in one round trip:
    -- 1. idempotency_claim; when an earlier request holds the key the result is
    --    {held: <its row>} and nothing else happens;
    -- 2. COMMIT the claim, so that concurrent duplicates see it. Its commit need not
    --    wait for the disk: were it lost in a crash, the effect (committed later, and
    --    durably, after it in the WAL) would be lost with it, and a retry runs once;
    -- 3. ledger_move, and mark the claim COMPLETED with {status: 201, posting} in the
    --    same transaction: the effect and its stored response commit together. A claim
    --    taken over meanwhile (its id changed) rolls the effect back.
    -- A refusal raises after step 2 and leaves the claim IN_PROGRESS for the service
    -- to store the 4xx. The result is {posting}. Must be CALLed outside a transaction block.
    CREATE PROCEDURE ledger_move_once(
      INOUT outcome jsonb, p_claim uuid, p_scope text, p_key text, p_hash text, p_ttl_seconds int, p_stale_seconds int,
      p_business uuid, p_type text, p_request jsonb
    ) LANGUAGE plpgsql AS $$
    BEGIN
      outcome := idempotency_claim(p_claim, p_scope, p_key, p_hash, p_ttl_seconds, p_stale_seconds);
      IF outcome IS NOT NULL THEN
        outcome := jsonb_build_object('held', outcome);
        RETURN;
      END IF;
      PERFORM set_config('synchronous_commit', 'off', true);
      COMMIT;

      outcome := ledger_move(p_business, p_type, p_request);
      UPDATE idempotency_keys SET state = 'COMPLETED', response_status = 201,
                                  response_body = jsonb_build_object('status', 201, 'posting', outcome)
      WHERE id = p_claim AND state = 'IN_PROGRESS';
      IF NOT FOUND THEN
        RAISE EXCEPTION 'idempotency claim % was taken over; rolling back', p_claim;
      END IF;
      outcome := jsonb_build_object('posting', outcome);
    END $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP PROCEDURE IF EXISTS ledger_move_once(jsonb, uuid, text, text, text, int, int, uuid, text, jsonb);
    DROP FUNCTION IF EXISTS idempotency_claim(uuid, text, text, text, int, int);
    DROP FUNCTION IF EXISTS ledger_move(uuid, text, jsonb);
    DROP FUNCTION IF EXISTS ledger_reverse(uuid, jsonb);
    DROP FUNCTION IF EXISTS ledger_refund(uuid, jsonb);
    DROP FUNCTION IF EXISTS ledger_lock_transaction(uuid, text);
    DROP FUNCTION IF EXISTS ledger_business_account(uuid, text);
    DROP FUNCTION IF EXISTS ledger_wallet(uuid, text);
  `);
}
