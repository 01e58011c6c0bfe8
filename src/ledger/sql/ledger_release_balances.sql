-- Ends the held balances of ledger_hold_balances: writes each held account's balance and
-- last entry's time and number (its entries of the batch, ledger_post) to its row, once
-- (only where an entry was posted), and holds nothing any more. Every batch that holds
-- balances calls it before it returns; ledger_transaction_balanced refuses to
-- commit a transaction that still holds some, since their movements would be lost.
CREATE OR REPLACE FUNCTION ledger_release_balances(p_business uuid) RETURNS void LANGUAGE plpgsql
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
         last_entry_at = greatest(a.last_entry_at, l.created_at),
         last_entry_number = l.entry_number,
         updated_at = now()
    FROM jsonb_each_text(held) h,
         LATERAL (SELECT e.created_at, e.entry_number FROM ledger_entries e
                   WHERE e.business_id = p_business AND e.account_id = h.key::uuid
                   ORDER BY e.entry_number DESC LIMIT 1) l
   WHERE a.id = h.key::uuid AND a.business_id = p_business
     AND l.entry_number > a.last_entry_number;
  PERFORM set_config('ledger.held_balances', '', true);
END $$;
