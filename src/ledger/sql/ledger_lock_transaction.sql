-- Locks and returns the business's transaction p_id, an id as the request sent it
-- (NULL when there is none). A refund or a reversal locks its original first, so
-- that two of them on one original queue and each sees the other's effect. PL/pgSQL, not
-- SQL: on Citus, a statement of an SQL function that reads a distributed table with the
-- function's arguments cannot be planned (docs/scale-out.md).
CREATE OR REPLACE FUNCTION ledger_lock_transaction(p_business uuid, p_id text) RETURNS transactions LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  t transactions;
BEGIN
  SELECT * INTO t FROM transactions WHERE id = request_uuid(p_id) AND business_id = p_business FOR NO KEY UPDATE;
  RETURN t;
END $$;
