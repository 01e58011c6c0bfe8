-- An account as refusal messages name it: "Wallet 900000000019", or
-- "The operational account 100000000011" for a business account.
CREATE OR REPLACE FUNCTION ledger_describe(a accounts) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN a.kind = 'WALLET' THEN 'Wallet ' || a.account_number
              ELSE 'The ' || lower(a.kind) || ' account ' || a.account_number END
$$;
