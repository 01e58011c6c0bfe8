-- An account as refusal messages name it, from its kind and account number: "Wallet
-- 900000000019", or "The operational account 100000000011" for a business account. From
-- values, not a row, so that a batch's plan (ledger_move_set), which reads no table, words
-- its refusals as ledger_post does.
CREATE OR REPLACE FUNCTION ledger_describe(p_kind text, p_account_number text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_kind = 'WALLET' THEN 'Wallet ' || p_account_number
              ELSE 'The ' || lower(p_kind) || ' account ' || p_account_number END
$$;
