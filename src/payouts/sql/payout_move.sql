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
-- which moves them once for the whole batch). Returns {payout: {id, status}, posted: the
-- type of the ledger transaction the move posted, or null} or the refusal
-- PAYOUT_NOT_FOUND / PAYOUT_STATUS_NOT_ALLOWED (nothing changed). The
-- ledger cannot refuse an outcome's posting (the money is in transit, the
-- receiver was checked): a refusal there is a bug and raises.
-- The rules of a move, written once for payout_move (one payout) and payout_move_set (a
-- batch set-wise), none reading a table:
--   payout_move_refusal      the refusal of moving payout p_payout, found in state p_status
--                            (NULL: not found), from one of p_from to p_to; NULL when allowed;
--   payout_receiver_gone     whether the payout's receiver, from its customer's and its wallet's
--                            states, is no longer ACTIVE (a completion then fails,
--                            RECEIVER_NOT_ACTIVE);
--   payout_step_posting      the posting of a step into p_target: its type and the kinds of its
--                            sides (the wallet's id is the payout's), or NULLs (PROCESSING).
-- They are SQL, inlined into a calling statement (payout_move_refusal is STABLE, as format is).
CREATE OR REPLACE FUNCTION payout_move_refusal(p_payout uuid, p_status text, p_from text[], p_to text) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN p_status IS NULL THEN ledger_refusal('PAYOUT_NOT_FOUND', format('No payout %s for this business.', p_payout))
    WHEN NOT p_status = ANY(p_from) THEN ledger_refusal('PAYOUT_STATUS_NOT_ALLOWED', format('The payout is %s; it cannot become %s.', p_status, p_to))
  END
$$;

CREATE OR REPLACE FUNCTION payout_receiver_gone(p_customer_status text, p_wallet_status text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT p_customer_status <> 'ACTIVE' OR p_wallet_status <> 'ACTIVE'
$$;

CREATE OR REPLACE FUNCTION payout_step_posting(p_target text) RETURNS TABLE (type text, debit_kind text, credit_kind text)
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE p_target WHEN 'COMPLETED' THEN 'CUSTOMER_PAYOUT_COMPLETION' WHEN 'FAILED' THEN 'CUSTOMER_PAYOUT_RETURN' END,
         CASE WHEN p_target IN ('COMPLETED', 'FAILED') THEN 'IN_TRANSIT' END,
         CASE p_target WHEN 'COMPLETED' THEN 'WALLET' WHEN 'FAILED' THEN 'PAYOUT' END
$$;

CREATE OR REPLACE FUNCTION payout_move(p_business uuid, p_payout uuid, p_from text[], p_to text, p_failure_code text DEFAULT NULL,
                                       p_count boolean DEFAULT true)
RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  p payouts;
  refusal jsonb;
  target text := p_to;
  code text := p_failure_code;
  step record;
  posting jsonb;
  reference text;
  previous text;
  moved_at timestamptz;
  customer_status text;
  wallet_status text;
BEGIN
  SELECT * INTO p FROM payouts WHERE business_id = p_business AND id = p_payout FOR NO KEY UPDATE;
  refusal := payout_move_refusal(p_payout, p.status, p_from, p_to);
  IF refusal IS NOT NULL THEN
    RETURN refusal;
  END IF;
  previous := p.status;
  IF target = 'COMPLETED' THEN
    SELECT status INTO customer_status FROM customers WHERE business_id = p_business AND id = p.customer_id;
    SELECT status INTO wallet_status FROM accounts WHERE business_id = p_business AND id = p.wallet_id;
    IF customer_status IS NOT NULL AND wallet_status IS NOT NULL AND payout_receiver_gone(customer_status, wallet_status) THEN
      target := 'FAILED';
      code := 'RECEIVER_NOT_ACTIVE';
    END IF;
  END IF;
  SELECT * INTO step FROM payout_step_posting(target);
  IF step.type IS NULL THEN
    SELECT t.reference INTO reference FROM transactions t WHERE t.business_id = p_business AND t.id = p.creation_transaction_id;
  ELSE
    posting := ledger_post(p_business, step.type, step.debit_kind, NULL, step.credit_kind,
                           CASE WHEN step.credit_kind = 'WALLET' THEN p.wallet_id::text END,
                           p.amount::text, p.currency, p.external_reference, p.purpose, p.creation_transaction_id);
    IF posting->'refusal' IS NOT NULL THEN
      RAISE EXCEPTION 'payout_move: the ledger refused step % of payout %: %', target, p.id, posting->'refusal';
    END IF;
    reference := posting->>'reference';
  END IF;
  -- The clock's time as a value: on Citus an UPDATE may call no volatile function.
  moved_at := clock_timestamp();
  UPDATE payouts SET status = target, failure_code = CASE WHEN target = 'FAILED' THEN code END,
                     outcome_transaction_id = (posting->>'id')::uuid, updated_at = moved_at
   WHERE business_id = p_business AND id = p.id RETURNING * INTO p;
  PERFORM payout_event(p, reference);
  IF p_count THEN
    PERFORM payout_bulk_count(p_business, jsonb_build_array(jsonb_build_object('payout_id', p.id, 'from', previous, 'to', p.status)));
  END IF;
  RETURN jsonb_build_object('payout', jsonb_build_object('id', p.id, 'status', p.status), 'posted', step.type);
END $$;

-- One move of a batch (payout_move_batch): m is
-- {payout_id, from: [states], to, failure_code}, applied as payout_move applies it,
-- the bulk payout counts left to the batch.
CREATE OR REPLACE FUNCTION payout_move_item(p_business uuid, m jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT payout_move(p_business, request_uuid(m->>'payout_id'), ARRAY(SELECT jsonb_array_elements_text(m->'from')), m->>'to', m->>'failure_code', false)
$$;
