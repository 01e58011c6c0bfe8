-- The rules a posting checks on each of its two accounts once the amount is known, written
-- once for the movement posted alone (ledger_post, which words the refusal) and for a batch
-- posted set-wise (ledger_move_set, which only asks whether any movement is refused).
-- Returns the first refusal of the side, or NULL:
--   WALLET_NOT_ACTIVE       a wallet that is not ACTIVE (only ACTIVE wallets move money);
--   INSUFFICIENT_FUNDS      a debit that takes the balance below 0.00, but on the settlement
--                           account, which mirrors money outside the closed loop, or a
--                           wallet with can_overdraft;
--   BALANCE_LIMIT_EXCEEDED  a balance at ±1e15 or beyond: the documented Balance has 15
--                           integer digits, although numeric(20,2) could hold 18.
-- p_kind, p_status, p_can_overdraft are the account's; p_after its balance after the
-- movement; p_debit whether the side is the debit. A SQL expression with no table: the
-- planner inlines it into the calling statement.
CREATE OR REPLACE FUNCTION ledger_side_refusal(p_kind text, p_status text, p_can_overdraft boolean, p_after numeric, p_debit boolean)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN p_kind = 'WALLET' AND p_status <> 'ACTIVE' THEN 'WALLET_NOT_ACTIVE'
    WHEN p_debit AND p_after < 0 AND NOT (p_kind = 'SETTLEMENT' OR (p_kind = 'WALLET' AND p_can_overdraft)) THEN 'INSUFFICIENT_FUNDS'
    WHEN abs(p_after) >= 1e15 THEN 'BALANCE_LIMIT_EXCEEDED' END
$$;
