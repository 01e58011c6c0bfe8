-- REFUND: a wallet → the operational account. Linked to a payout
-- (original_transaction_id), it defaults to the payout's wallet, and the payout's
-- refunded total may not pass its amount: the payout's row is locked first, so
-- that concurrent refunds of one payout queue and each sees the others' total.
-- Request: {amount, original_transaction_id?, wallet_id? (required without an
-- original), external_reference?, notes?}.
--
-- Refusals, in this order: VALIDATION_ERROR (/amount, then /wallet_id),
-- TRANSACTION_NOT_FOUND, TRANSACTION_NOT_REFUNDABLE (not a payout, or reversed),
-- REFUND_EXCEEDS_ORIGINAL, then ledger_post's.
-- The posting adds `original`: null, or {reference, amount, refunded_amount (the
-- new running total)}.
CREATE OR REPLACE FUNCTION ledger_refund(p_business uuid, r jsonb) RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  problem text := ledger_amount_problem(r->>'amount');
  v_amount numeric;
  o transactions;
  posting jsonb;
BEGIN
  IF problem IS NOT NULL THEN
    RETURN ledger_refusal('VALIDATION_ERROR', problem, '/amount');
  END IF;
  v_amount := round((r->>'amount')::numeric, 2);
  IF r->>'original_transaction_id' IS NULL AND r->>'wallet_id' IS NULL THEN
    RETURN ledger_refusal('VALIDATION_ERROR', 'is required when original_transaction_id is absent', '/wallet_id');
  END IF;
  IF r->>'original_transaction_id' IS NOT NULL THEN
    o := ledger_lock_transaction(p_business, r->>'original_transaction_id');
    IF o.id IS NULL THEN
      RETURN ledger_refusal('TRANSACTION_NOT_FOUND', format('No transaction %s for this business.', r->>'original_transaction_id'));
    END IF;
    IF o.type <> 'PAYOUT' THEN
      RETURN ledger_refusal('TRANSACTION_NOT_REFUNDABLE', format('Only payouts can be refunded; %s is a %s.', o.reference, o.type));
    END IF;
    IF o.reversal_transaction_id IS NOT NULL THEN
      RETURN ledger_refusal('TRANSACTION_NOT_REFUNDABLE', format('Payout %s has been reversed.', o.reference));
    END IF;
    IF o.refunded_amount + v_amount > o.amount THEN
      RETURN ledger_refusal('REFUND_EXCEEDS_ORIGINAL', format('Payout %s of %s has %s refunded; %s more would exceed it.',
        o.reference, o.amount, o.refunded_amount, v_amount));
    END IF;
  END IF;
  posting := ledger_post(p_business, 'REFUND', 'WALLET', coalesce(r->>'wallet_id', o.credit_account_id::text), 'OPERATIONAL', NULL,
                         r->>'amount', NULL, r->>'external_reference', r->>'notes', o.id);
  IF posting->'refusal' IS NOT NULL THEN
    RETURN posting;
  END IF;
  IF o.id IS NULL THEN
    RETURN posting || jsonb_build_object('original', NULL);
  END IF;
  UPDATE transactions SET refunded_amount = refunded_amount + v_amount WHERE id = o.id AND business_id = p_business;
  RETURN posting || jsonb_build_object('original', jsonb_build_object(
    'reference', o.reference, 'amount', o.amount::text, 'refunded_amount', (o.refunded_amount + v_amount)::text));
END $$;
