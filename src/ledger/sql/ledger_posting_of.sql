-- The posting of transaction p_id of business p_business exactly as ledger_move returned it when it
-- committed, for the replay of an Idempotency-Key: rebuilt from what never
-- changes rather than stored, so that a key's row stays small. That is the
-- transaction row as created (refunded_amount 0.00, no reversal yet), both
-- accounts, its entries; for a refund linked to a payout, the payout's refunded
-- total up to this refund (refunds of one payout are serialised by its row lock, and
-- each credits the business's operational account: their entries there are numbered in
-- that order). What a capability adds to its own postings it rebuilds itself
-- (payout_posting_of). Every read names
-- the business: distributed by business (docs/scale-out.md), the replay reads the
-- shards of that business's node only.
CREATE OR REPLACE FUNCTION ledger_posting_of(p_business uuid, p_id uuid) RETURNS jsonb LANGUAGE plpgsql STABLE
  SET enable_seqscan = off
AS $$
DECLARE
  t transactions;
  o transactions;
  d accounts;
  c accounts;
  posting jsonb;
BEGIN
  SELECT * INTO STRICT t FROM transactions WHERE id = p_id AND business_id = p_business;
  SELECT * INTO STRICT d FROM accounts WHERE id = t.debit_account_id AND business_id = p_business;
  SELECT * INTO STRICT c FROM accounts WHERE id = t.credit_account_id AND business_id = p_business;
  t.refunded_amount := 0;
  t.reversal_transaction_id := NULL;
  posting := ledger_posting_json(t, d, c,
    (SELECT balance_after FROM ledger_entries WHERE transaction_id = t.id AND account_id = d.id AND business_id = p_business),
    (SELECT balance_after FROM ledger_entries WHERE transaction_id = t.id AND account_id = c.id AND business_id = p_business));
  IF t.type = 'REFUND' THEN
    SELECT * INTO o FROM transactions WHERE id = t.original_transaction_id AND business_id = p_business;
    posting := posting || jsonb_build_object('original', CASE WHEN o.id IS NULL THEN NULL ELSE jsonb_build_object(
      'reference', o.reference, 'amount', o.amount::text,
      'refunded_amount', (SELECT sum(x.amount) FROM transactions x
                            JOIN ledger_entries xe ON xe.business_id = p_business AND xe.transaction_id = x.id AND xe.account_id = c.id
                          WHERE x.original_transaction_id = o.id AND x.business_id = p_business AND x.type = 'REFUND'
                            AND xe.entry_number <= (SELECT entry_number FROM ledger_entries
                                                     WHERE business_id = p_business AND transaction_id = t.id AND account_id = c.id))::text) END);
  END IF;
  RETURN posting;
END $$;
