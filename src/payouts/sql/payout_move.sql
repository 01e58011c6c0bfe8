-- Moves payout p_payout of business p_business from one of the states p_from to
-- p_to (the caller's state table, src/payouts/states.ts), with failure code
-- p_failure_code for FAILED, under the payout's row lock and in the caller's
-- transaction:
--   PROCESSING  no money moves (submitted to the bank);
--   COMPLETED   in transit → the customer's wallet (CUSTOMER_PAYOUT_COMPLETION);
--               a receiver no longer ACTIVE (customer or wallet) fails it instead,
--               with RECEIVER_NOT_ACTIVE, since money may only reach ACTIVE wallets;
--   FAILED      in transit → the payout account (CUSTOMER_PAYOUT_RETURN);
-- each with its `payout.<status>` event, and the counts of its bulk payout, if any
-- (payout_bulk_count; p_count false leaves them to the caller, payout_move_batch,
-- which moves them once for the whole batch). Returns {payout: {id, status}} or the
-- refusal PAYOUT_NOT_FOUND / PAYOUT_STATUS_NOT_ALLOWED (nothing changed). The
-- ledger cannot refuse an outcome's posting (the money is in transit, the
-- receiver was checked): a refusal there is a bug and raises.
CREATE OR REPLACE FUNCTION payout_move(p_business uuid, p_payout uuid, p_from text[], p_to text, p_failure_code text DEFAULT NULL,
                                       p_count boolean DEFAULT true)
RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  p payouts;
  target text := p_to;
  code text := p_failure_code;
  posting jsonb;
  reference text;
  previous text;
  moved_at timestamptz;
BEGIN
  SELECT * INTO p FROM payouts WHERE id = p_payout AND business_id = p_business FOR NO KEY UPDATE;
  IF p.id IS NULL THEN
    RETURN ledger_refusal('PAYOUT_NOT_FOUND', format('No payout %s for this business.', p_payout));
  END IF;
  IF NOT p.status = ANY(p_from) THEN
    RETURN ledger_refusal('PAYOUT_STATUS_NOT_ALLOWED', format('The payout is %s; it cannot become %s.', p.status, p_to));
  END IF;
  previous := p.status;
  IF target = 'COMPLETED' AND EXISTS (
       SELECT 1 FROM customers c JOIN accounts a ON a.id = p.wallet_id AND a.business_id = p.business_id
        WHERE c.id = p.customer_id AND c.business_id = p.business_id AND (c.status <> 'ACTIVE' OR a.status <> 'ACTIVE')) THEN
    target := 'FAILED';
    code := 'RECEIVER_NOT_ACTIVE';
  END IF;
  IF target = 'PROCESSING' THEN
    reference := (SELECT t.reference FROM transactions t WHERE t.id = p.creation_transaction_id AND t.business_id = p.business_id);
  ELSE
    IF target = 'COMPLETED' THEN
      posting := ledger_post(p_business, 'CUSTOMER_PAYOUT_COMPLETION', 'IN_TRANSIT', NULL, 'WALLET', p.wallet_id::text,
                             p.amount::text, p.currency, p.external_reference, p.purpose, p.creation_transaction_id);
    ELSE
      posting := ledger_post(p_business, 'CUSTOMER_PAYOUT_RETURN', 'IN_TRANSIT', NULL, 'PAYOUT', NULL,
                             p.amount::text, p.currency, p.external_reference, p.purpose, p.creation_transaction_id);
    END IF;
    IF posting->'refusal' IS NOT NULL THEN
      RAISE EXCEPTION 'payout_move: the ledger refused step % of payout %: %', target, p.id, posting->'refusal';
    END IF;
    reference := posting->>'reference';
  END IF;
  -- The clock's time as a value: on Citus an UPDATE may call no volatile function.
  moved_at := clock_timestamp();
  UPDATE payouts SET status = target, failure_code = CASE WHEN target = 'FAILED' THEN code END,
                     outcome_transaction_id = (posting->>'id')::uuid, updated_at = moved_at
   WHERE id = p.id AND business_id = p.business_id RETURNING * INTO p;
  PERFORM payout_event(p, reference);
  IF p_count THEN
    PERFORM payout_bulk_count(p_business, jsonb_build_array(jsonb_build_object('payout_id', p.id, 'from', previous, 'to', p.status)));
  END IF;
  RETURN jsonb_build_object('payout', jsonb_build_object('id', p.id, 'status', p.status));
END $$;

-- One move of a batch (payout_move_batch): m is
-- {payout_id, from: [states], to, failure_code}, applied as payout_move applies it,
-- the bulk payout counts left to the batch.
CREATE OR REPLACE FUNCTION payout_move_item(p_business uuid, m jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT payout_move(p_business, request_uuid(m->>'payout_id'), ARRAY(SELECT jsonb_array_elements_text(m->'from')), m->>'to', m->>'failure_code', false)
$$;
