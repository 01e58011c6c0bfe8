-- The two sides of a movement whose accounts the request names (ledger_batched_movements):
-- the table of ledger_move for them, written once, read by ledger_move for one movement and
-- by ledger_move_set for a batch. A side is a kind ('WALLET', or a business account kind)
-- and, for a wallet, the id as the request sent it (see ledger_post).
--
--   FUND, PAYOUT          the operational account → wallet_id
--   WITHDRAWAL            wallet_id → the operational account
--   TRANSFER              source_wallet_id → destination_wallet_id
--   CARD_PURCHASE         wallet_id → the settlement account
--
-- Any other type has a row of four NULLs. One row of a SQL expression with no table, declared
-- as a table so that the planner inlines it into a calling statement's FROM (a function
-- returning one record is called per row instead).
CREATE OR REPLACE FUNCTION ledger_sides(p_type text, r jsonb) RETURNS TABLE (debit_kind text, debit text, credit_kind text, credit text)
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE p_type WHEN 'FUND' THEN 'OPERATIONAL' WHEN 'PAYOUT' THEN 'OPERATIONAL'
                     WHEN 'WITHDRAWAL' THEN 'WALLET' WHEN 'TRANSFER' THEN 'WALLET' WHEN 'CARD_PURCHASE' THEN 'WALLET' END,
         CASE p_type WHEN 'WITHDRAWAL' THEN r->>'wallet_id' WHEN 'CARD_PURCHASE' THEN r->>'wallet_id'
                     WHEN 'TRANSFER' THEN r->>'source_wallet_id' END,
         CASE p_type WHEN 'FUND' THEN 'WALLET' WHEN 'PAYOUT' THEN 'WALLET' WHEN 'TRANSFER' THEN 'WALLET'
                     WHEN 'WITHDRAWAL' THEN 'OPERATIONAL' WHEN 'CARD_PURCHASE' THEN 'SETTLEMENT' END,
         CASE p_type WHEN 'FUND' THEN r->>'wallet_id' WHEN 'PAYOUT' THEN r->>'wallet_id'
                     WHEN 'TRANSFER' THEN r->>'destination_wallet_id' END
$$;
