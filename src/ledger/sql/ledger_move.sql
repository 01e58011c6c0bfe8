-- ledger_move: one movement of money of business p_business: the ledger's entry point, one
-- statement and one round trip per movement. r is the API request body as JSON
-- (already validated against the document; the ledger checks again what it relies on).
--
-- Each movement type is one line of this table: the two sides it moves money
-- between (see ledger_post for how a side is named) and, where a movement has rules
-- of its own, the function that holds them. Every posting's own rules (wallets
-- exist and are ACTIVE, funds, limits, locking order) are ledger_post's.
--
--   FUND, PAYOUT, WITHDRAWAL, TRANSFER, CARD_PURCHASE
--                         ledger_sides (the accounts the request names; a transfer's
--                         SAME_WALLET_TRANSFER first). A card purchase's money leaves the
--                         closed loop to the card network, as a top-up's enters from it.
--   TOPUP                 ledger_topup: the settlement account → the operational account
--   PAYOUT_ACCOUNT_TOPUP  the settlement account → the payout account (type TOPUP; sandbox)
--   REFUND                ledger_refund: a wallet → the operational account
--   REVERSAL              ledger_reversal: an original transaction back
--
-- The ledger names no capability: a capability that posts (a payout's creation and its
-- outcomes) calls ledger_post from its own entry point, never the reverse.
--
-- Returns the posting or the refusal (see ledger_post); an unknown type is a
-- caller's bug and raises.
CREATE OR REPLACE FUNCTION ledger_move(p_business uuid, p_type text, r jsonb) RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  s record;
BEGIN
  CASE p_type
  WHEN 'FUND', 'PAYOUT', 'WITHDRAWAL', 'TRANSFER', 'CARD_PURCHASE' THEN
    IF p_type = 'TRANSFER' AND r->>'source_wallet_id' = r->>'destination_wallet_id' THEN
      RETURN ledger_refusal('SAME_WALLET_TRANSFER', 'The source and destination wallets must differ.');
    END IF;
    SELECT * INTO s FROM ledger_sides(p_type, r);
    RETURN ledger_post(p_business, p_type, s.debit_kind, s.debit, s.credit_kind, s.credit,
                       r->>'amount', r->>'currency', r->>'external_reference', r->>'notes');
  WHEN 'TOPUP' THEN
    RETURN ledger_topup(p_business, r);
  WHEN 'PAYOUT_ACCOUNT_TOPUP' THEN
    RETURN ledger_post(p_business, 'TOPUP', 'SETTLEMENT', NULL, 'PAYOUT', NULL, r->>'amount', NULL, NULL, NULL);
  WHEN 'REFUND' THEN
    RETURN ledger_refund(p_business, r);
  WHEN 'REVERSAL' THEN
    RETURN ledger_reversal(p_business, r);
  ELSE
    RAISE EXCEPTION 'ledger_move: unknown movement type %', p_type;
  END CASE;
END $$;
