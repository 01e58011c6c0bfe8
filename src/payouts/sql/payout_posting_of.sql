-- What a CUSTOMER_PAYOUT adds to its posting ({payout: {id, created_at}}, as
-- payout_create returned it but for customer_id), rebuilt from the payout that
-- transaction p_transaction of business p_business created, for the replay of an Idempotency-Key
-- (payout_create_keyed adds it to the ledger's posting, ledger_posting_of). '{}' when no
-- payout was created by it.
CREATE OR REPLACE FUNCTION payout_posting_of(p_business uuid, p_transaction uuid) RETURNS jsonb LANGUAGE plpgsql STABLE
  SET enable_seqscan = off
AS $$
BEGIN
  RETURN coalesce((SELECT jsonb_build_object('payout', jsonb_build_object('id', p.id, 'created_at', p.created_at))
                     FROM payouts p WHERE p.creation_transaction_id = p_transaction AND p.business_id = p_business), '{}');
END $$;
