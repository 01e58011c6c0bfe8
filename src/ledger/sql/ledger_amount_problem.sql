-- What is wrong with an amount sent in a request, or NULL when it is fine: a
-- decimal string with at most 15 integer digits (the documented Balance range)
-- and at most two decimals, greater than zero.
--
-- The ledger checks the amount itself rather than trusting the HTTP layer, because
-- not every caller has a document in front of it (bulk payout items are checked
-- one by one here). A SQL expression with no table is inlined by the planner into
-- the calling statement, so this check costs what the expression costs.
CREATE OR REPLACE FUNCTION ledger_amount_problem(p_value text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN p_value IS NULL OR p_value !~ '^[0-9]{1,15}([.][0-9]{1,2}){0,1}$'
      THEN 'must be a decimal string with at most two decimals'
    WHEN p_value::numeric <= 0 THEN 'must be greater than 0' END
$$;
