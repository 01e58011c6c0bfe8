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
-- shards of that business's node only; each reads one table, by the business as a value,
-- so that Citus caches its plan (docs/scale-out.md, "Statements a worker plans once").
CREATE OR REPLACE FUNCTION ledger_posting_of(p_business uuid, p_id uuid) RETURNS jsonb LANGUAGE plpgsql STABLE
  SET enable_seqscan = off
AS $$
DECLARE
  t transactions;
  o transactions;
  d accounts;
  c accounts;
  d_after numeric;
  c_after numeric;
  c_number bigint;
  refunds uuid[];
  amounts numeric[];
  counted uuid[];
  posting jsonb;
BEGIN
  SELECT * INTO STRICT t FROM transactions WHERE business_id = p_business AND id = p_id;
  SELECT * INTO STRICT d FROM accounts WHERE business_id = p_business AND id = t.debit_account_id;
  SELECT * INTO STRICT c FROM accounts WHERE business_id = p_business AND id = t.credit_account_id;
  SELECT balance_after INTO d_after FROM ledger_entries WHERE business_id = p_business AND transaction_id = t.id AND account_id = d.id;
  SELECT balance_after, entry_number INTO c_after, c_number
    FROM ledger_entries WHERE business_id = p_business AND transaction_id = t.id AND account_id = c.id;
  t.refunded_amount := 0;
  t.reversal_transaction_id := NULL;
  posting := ledger_posting_json(t, d, c, d_after, c_after);
  IF t.type = 'REFUND' THEN
    SELECT * INTO o FROM transactions WHERE business_id = p_business AND id = t.original_transaction_id;
    IF o.id IS NULL THEN
      RETURN posting || jsonb_build_object('original', NULL);
    END IF;
    -- The original's refunds, then those of them credited to c up to this one (their entries' numbers).
    SELECT array_agg(id), array_agg(amount) INTO refunds, amounts
      FROM transactions WHERE business_id = p_business AND original_transaction_id = o.id AND type = 'REFUND';
    SELECT array_agg(transaction_id) INTO counted
      FROM ledger_entries WHERE business_id = p_business AND account_id = c.id AND transaction_id = ANY(refunds) AND entry_number <= c_number;
    posting := posting || jsonb_build_object('original', jsonb_build_object(
      'reference', o.reference, 'amount', o.amount::text,
      'refunded_amount', (SELECT sum(u.amount) FROM unnest(refunds, amounts) u(id, amount) WHERE u.id = ANY(counted))::text));
  END IF;
  RETURN posting;
END $$;
