-- The registry of the movements: the one file of the ledger that names another
-- capability's functions (CUSTOMER_PAYOUT's payout_create, its posting's view
-- payout_posting_of, the payout batches' steps payout_create_item and
-- payout_move_item). Every other ledger function names the ledger's own and the
-- kernel's functions only; a capability's own SQL calls the ledger, never the reverse,
-- except through here.
--
-- ledger_move: one movement of money of business p_business: the ledger's entry point, one
-- statement and one round trip per movement. r is the API request body as JSON
-- (already validated against the document; the ledger checks again what it relies on).
--
-- Each movement type is one line of this table: the two sides it moves money
-- between (see ledger_post for how a side is named) and, where a movement has rules
-- of its own, the function that holds them. Every posting's own rules (wallets
-- exist and are ACTIVE, funds, limits, locking order) are ledger_post's.
--
--   FUND, PAYOUT          the operational account → wallet_id
--   WITHDRAWAL            wallet_id → the operational account
--   TRANSFER              source_wallet_id → destination_wallet_id (SAME_WALLET_TRANSFER first)
--   CARD_PURCHASE         wallet_id → the settlement account (the money leaves the
--                         closed loop to the card network, as a top-up's enters from it)
--   TOPUP                 ledger_topup: the settlement account → the operational account
--   PAYOUT_ACCOUNT_TOPUP  the settlement account → the payout account (type TOPUP; sandbox)
--   REFUND                ledger_refund: a wallet → the operational account
--   REVERSAL              ledger_reversal: an original transaction back
--   CUSTOMER_PAYOUT       payout_create: the payout account → in transit, and the payout
--
-- Returns the posting or the refusal (see ledger_post); an unknown type is a
-- caller's bug and raises.
CREATE OR REPLACE FUNCTION ledger_move(p_business uuid, p_type text, r jsonb) RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
BEGIN
  CASE p_type
  WHEN 'FUND', 'PAYOUT' THEN
    RETURN ledger_post(p_business, p_type, 'OPERATIONAL', NULL, 'WALLET', r->>'wallet_id',
                       r->>'amount', r->>'currency', r->>'external_reference', r->>'notes');
  WHEN 'TRANSFER' THEN
    IF r->>'source_wallet_id' = r->>'destination_wallet_id' THEN
      RETURN ledger_refusal('SAME_WALLET_TRANSFER', 'The source and destination wallets must differ.');
    END IF;
    RETURN ledger_post(p_business, p_type, 'WALLET', r->>'source_wallet_id', 'WALLET', r->>'destination_wallet_id',
                       r->>'amount', r->>'currency', r->>'external_reference', r->>'notes');
  WHEN 'WITHDRAWAL' THEN
    RETURN ledger_post(p_business, p_type, 'WALLET', r->>'wallet_id', 'OPERATIONAL', NULL,
                       r->>'amount', r->>'currency', r->>'external_reference', r->>'notes');
  WHEN 'CARD_PURCHASE' THEN
    RETURN ledger_post(p_business, p_type, 'WALLET', r->>'wallet_id', 'SETTLEMENT', NULL,
                       r->>'amount', r->>'currency', r->>'external_reference', r->>'notes');
  WHEN 'TOPUP' THEN
    RETURN ledger_topup(p_business, r);
  WHEN 'PAYOUT_ACCOUNT_TOPUP' THEN
    RETURN ledger_post(p_business, 'TOPUP', 'SETTLEMENT', NULL, 'PAYOUT', NULL, r->>'amount', NULL, NULL, NULL);
  WHEN 'REFUND' THEN
    RETURN ledger_refund(p_business, r);
  WHEN 'REVERSAL' THEN
    RETURN ledger_reversal(p_business, r);
  WHEN 'CUSTOMER_PAYOUT' THEN
    RETURN payout_create(p_business, r);
  ELSE
    RAISE EXCEPTION 'ledger_move: unknown movement type %', p_type;
  END CASE;
END $$;

-- What a movement's own capability adds to its posting, rebuilt for the replay of an
-- Idempotency-Key (ledger_posting_of) from transaction p_transaction of business
-- p_business, of type p_type:
-- '{}' for the ledger's own movements.
CREATE OR REPLACE FUNCTION ledger_posting_view(p_business uuid, p_type text, p_transaction uuid) RETURNS jsonb LANGUAGE plpgsql STABLE
  SET enable_seqscan = off
AS $$
BEGIN
  IF p_type = 'CUSTOMER_PAYOUT' THEN
    RETURN payout_posting_of(p_business, p_transaction);
  END IF;
  RETURN '{}';
END $$;

-- A batch of business p_business, the one shape every batch has: the balances of
-- p_accounts are held for the call (ledger_hold_balances; none when NULL), each item of
-- p_items (a JSON array) goes through step p_step in order, and the held balances are
-- written back (ledger_release_balances). Returns the JSON array of the items' results,
-- in order. The caller has locked every account its items can post to, in ascending
-- id order, before the call. Steps:
--   MOVE            {type, request, key}: ledger_move, or ledger_move_keyed with key's
--                   arguments [scope, key, hash, ttl_seconds, stale_seconds, context]
--                   (ledger_move_batch)
--   PAYOUT_CREATE   an E4 request body: payout_create_item (payout_create_batch)
--   PAYOUT_MOVE     {payout_id, from, to, failure_code}: payout_move_item (payout_move_batch)
-- An unknown step is a caller's bug and raises.
CREATE OR REPLACE FUNCTION ledger_batch(p_business uuid, p_accounts uuid[], p_step text, p_items jsonb) RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  item jsonb;
  k jsonb;
  result jsonb;
  results jsonb[] := '{}';
BEGIN
  IF p_accounts IS NOT NULL THEN
    PERFORM ledger_hold_balances(p_business, p_accounts);
  END IF;
  FOR item IN SELECT value FROM jsonb_array_elements(p_items) LOOP
    CASE p_step
    WHEN 'MOVE' THEN
      k := item->'key';
      IF k IS NULL OR jsonb_typeof(k) = 'null' THEN
        result := ledger_move(p_business, item->>'type', item->'request');
      ELSE
        result := ledger_move_keyed(p_business, k->>0, k->>1, k->>2, (k->>3)::int, (k->>4)::int, k->5, item->>'type', item->'request');
      END IF;
    WHEN 'PAYOUT_CREATE' THEN
      result := payout_create_item(p_business, item);
    WHEN 'PAYOUT_MOVE' THEN
      result := payout_move_item(p_business, item);
    ELSE
      RAISE EXCEPTION 'ledger_batch: unknown step %', p_step;
    END CASE;
    results := array_append(results, result);
  END LOOP;
  PERFORM ledger_release_balances(p_business);
  RETURN to_jsonb(results);
END $$;
