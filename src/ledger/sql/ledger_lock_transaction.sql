-- Locks and returns the business's transaction p_id, an id as the request sent it
-- (NULL when there is none). A refund or a reversal locks its original first, so
-- that two of them on one original queue and each sees the other's effect.
CREATE OR REPLACE FUNCTION ledger_lock_transaction(p_business uuid, p_id text) RETURNS transactions LANGUAGE sql AS $$
  SELECT * FROM transactions WHERE id = request_uuid(p_id) AND business_id = p_business FOR NO KEY UPDATE
$$;
