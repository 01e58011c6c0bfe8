-- The balances this transaction holds (ledger_hold_balances): a JSON object, account id →
-- balance, or NULL when it holds none.
CREATE OR REPLACE FUNCTION ledger_held_balances() RETURNS jsonb LANGUAGE sql VOLATILE
AS $$
  SELECT nullif(current_setting('ledger.held_balances', true), '')::jsonb
$$;
