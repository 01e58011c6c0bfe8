-- Ends the held balances of ledger_hold_balances: writes each held account's balance and
-- last entry time (its entries of the batch, ledger_post) to its row, once (only where
-- either changed), and holds nothing any more. ledger_batch, the
-- one batch that holds balances, calls it before it returns; ledger_transaction_balanced refuses to
-- commit a transaction that still holds some, since their movements would be lost.
CREATE OR REPLACE FUNCTION ledger_release_balances() RETURNS void LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  held jsonb := ledger_held_balances();
BEGIN
  IF held IS NULL THEN
    RETURN;
  END IF;
  UPDATE accounts a
     SET balance = h.value::numeric,
         last_entry_at = greatest(a.last_entry_at,
           (SELECT max(e.created_at) FROM ledger_entries e WHERE e.business_id = a.business_id AND e.account_id = a.id)),
         updated_at = now()
    FROM jsonb_each_text(held) h
   WHERE a.id = h.key::uuid
     AND (a.balance <> h.value::numeric
          OR EXISTS (SELECT 1 FROM ledger_entries e WHERE e.business_id = a.business_id AND e.account_id = a.id
                                                      AND e.created_at > coalesce(a.last_entry_at, '-infinity')));
  PERFORM set_config('ledger.held_balances', '', true);
END $$;
