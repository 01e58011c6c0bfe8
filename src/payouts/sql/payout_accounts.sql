-- The ids of business p_business's payout and in-transit accounts: the two accounts that
-- every payout's postings debit and credit (creation: payout → in-transit; completion or
-- failure: out of in-transit), so the rows a batch of payouts locks and holds
-- (payout_create_batch, payout_move_batch; ledger_hold_balances).
-- PL/pgSQL, not SQL: see payout_event.sql.
CREATE OR REPLACE FUNCTION payout_accounts(p_business uuid) RETURNS uuid[] LANGUAGE plpgsql STABLE
  SET enable_seqscan = off
AS $$
DECLARE
  ids uuid[];
BEGIN
  SELECT array_agg(id) INTO ids FROM accounts WHERE business_id = p_business AND kind IN ('PAYOUT', 'IN_TRANSIT');
  RETURN coalesce(ids, '{}');
END $$;
