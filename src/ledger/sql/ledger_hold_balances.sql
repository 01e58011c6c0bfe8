-- Held balances: a batch that posts many movements over the same accounts of business
-- p_business in one database transaction (ledger_move_batch, and payouts'
-- payout_create_batch and payout_move_batch) holds those accounts' balances in the
-- transaction, and ledger_post
-- reads and changes the held balance instead of updating the account's row at every
-- posting; ledger_release_balances writes each held row once, when the batch ends.
-- Every entry still carries its balance after, computed from the held balance. Batches
-- hold the business's own accounts, the hot rows that most of their items change; a
-- wallet stays updated per posting (the held balances are read and written back at each
-- posting, so holding an account posted to once or twice would only cost).
--
-- Why: each UPDATE of a row leaves a version of it that nothing can prune before the
-- transaction ends, and each later lookup of the row in that transaction walks them all:
-- postings over the same accounts in one transaction slow down as it goes. With the
-- balances held, each costs the same throughout (openapi/DESIGN.md, "Held balances").
--
-- Locks p_accounts, the business's own, FOR NO KEY UPDATE in ascending id order
-- (ledger_post's mode and order: after the batch's wallets, which its caller locked), so
-- the balances read are current and stay so until commit. The balances live in the
-- transaction-local setting `ledger.held_balances` (a JSON object, account id → balance),
-- so a subtransaction rolled back takes its changes to them with it, as it takes its
-- entries. Raises when balances are already held (batches do not nest).
CREATE OR REPLACE FUNCTION ledger_hold_balances(p_business uuid, p_accounts uuid[]) RETURNS void LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  held jsonb;
BEGIN
  IF ledger_held_balances() IS NOT NULL THEN
    RAISE EXCEPTION 'ledger_hold_balances: balances are already held in this transaction';
  END IF;
  PERFORM 1 FROM accounts WHERE business_id = p_business AND id = ANY(p_accounts) ORDER BY id FOR NO KEY UPDATE;
  SELECT jsonb_object_agg(id, balance::text) INTO held FROM accounts WHERE business_id = p_business AND id = ANY(p_accounts);
  PERFORM set_config('ledger.held_balances', coalesce(held, '{}'::jsonb)::text, true);
END $$;
