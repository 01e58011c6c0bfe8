-- What a CUSTOMER_PAYOUT adds to its posting ({payout: {id, created_at}}, as
-- payout_create returned it but for customer_id), rebuilt from the payout that
-- transaction p_transaction of business p_business created, for the replay of an Idempotency-Key
-- (payout_create_keyed adds it to the ledger's posting, ledger_posting_of). '{}' when no
-- payout was created by it.
CREATE OR REPLACE FUNCTION payout_posting_of(p_business uuid, p_transaction uuid) RETURNS jsonb LANGUAGE plpgsql STABLE
  SET enable_seqscan = off
AS $$
DECLARE
  added jsonb;
BEGIN
  SELECT jsonb_build_object('payout', jsonb_build_object('id', id, 'created_at', created_at)) INTO added
    FROM payouts WHERE business_id = p_business AND creation_transaction_id = p_transaction;
  RETURN coalesce(added, '{}');
END $$;
