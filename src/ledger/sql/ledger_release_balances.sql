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
  h record;
  last record;
  -- The transaction's clock as a value: a write that calls now() is deparsed on every call by Citus.
  changed timestamptz := now();
BEGIN
  IF held IS NULL THEN
    RETURN;
  END IF;
  -- One held account at a time (a batch holds two to four), each statement on one table.
  FOR h IN SELECT key::uuid AS id, value::numeric AS balance FROM jsonb_each_text(held) LOOP
    SELECT created_at, entry_number INTO last FROM ledger_entries
     WHERE business_id = p_business AND account_id = h.id ORDER BY entry_number DESC LIMIT 1;
    UPDATE accounts
       SET balance = h.balance, last_entry_at = greatest(last_entry_at, last.created_at),
           last_entry_number = last.entry_number, updated_at = changed
     WHERE business_id = p_business AND id = h.id AND last_entry_number < last.entry_number;
  END LOOP;
  PERFORM set_config('ledger.held_balances', '', true);
END $$;
