-- REVERSAL: the original transaction's amount back from its credit side to its
-- debit side, once. The original is locked first, so that two reversals of it
-- queue and the second finds it reversed. Payouts with refunds are not reversed
-- (refund the remainder instead): the two corrections would overlap.
-- Request: {original_transaction_id, external_reference?, notes?}.
--
-- Refusals, in this order: TRANSACTION_NOT_FOUND, TRANSACTION_ALREADY_REVERSED,
-- TRANSACTION_NOT_REVERSIBLE (its type, or its refunds), then ledger_post's (the
-- reversed posting follows every rule of a new one: the credited side must still
-- hold the money).
CREATE OR REPLACE FUNCTION ledger_reversal(p_business uuid, r jsonb) RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  o transactions := ledger_lock_transaction(p_business, r->>'original_transaction_id');
  posting jsonb;
BEGIN
  IF o.id IS NULL THEN
    RETURN ledger_refusal('TRANSACTION_NOT_FOUND', format('No transaction %s for this business.', r->>'original_transaction_id'));
  END IF;
  IF o.reversal_transaction_id IS NOT NULL THEN
    RETURN ledger_refusal('TRANSACTION_ALREADY_REVERSED', format('Transaction %s has already been reversed.', o.reference));
  END IF;
  IF o.type NOT IN ('FUND', 'PAYOUT', 'TRANSFER', 'WITHDRAWAL') THEN
    RETURN ledger_refusal('TRANSACTION_NOT_REVERSIBLE',
      format('A %s cannot be reversed; reversible types: FUND, PAYOUT, TRANSFER, WITHDRAWAL.', o.type));
  END IF;
  IF o.refunded_amount > 0 THEN
    RETURN ledger_refusal('TRANSACTION_NOT_REVERSIBLE', format('Payout %s has refunds; refund the remainder instead.', o.reference));
  END IF;
  posting := ledger_post(p_business, 'REVERSAL', NULL, o.credit_account_id::text, NULL, o.debit_account_id::text,
                         o.amount::text, o.currency, r->>'external_reference', r->>'notes', o.id);
  IF posting->'refusal' IS NULL THEN
    UPDATE transactions SET reversal_transaction_id = (posting->>'id')::uuid WHERE id = o.id AND business_id = p_business;
  END IF;
  RETURN posting;
END $$;
