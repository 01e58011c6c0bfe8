-- CUSTOMER_PAYOUT (createPayout, E4; also each item of a bulk payout): the payout
-- account → the in-transit account, the `payouts` row (PENDING) and its
-- `payout.pending` event, in the caller's transaction. Money is always in exactly
-- one place: on the payout account, in transit, or (once the payout completes,
-- payout_move) on the customer's wallet.
-- Request: the E4 body {payout_amount, one receiver identifier (customer_by_identifier),
-- payout_purpose?, external_reference?}.
--
-- Refusals, in this order, all before the first write: VALIDATION_ERROR
-- (/payout_amount; /customer_id when not exactly one identifier is given),
-- CUSTOMER_NOT_FOUND, PAYOUT_RECEIVER_NOT_WHITELISTED (an ACTIVE receiver missing
-- from the list of a business that enforces its payout whitelist; deciding it here
-- makes every payout path honour the list, and stores the refusal with the
-- Idempotency-Key like any other), CUSTOMER_NOT_ACTIVE, then ledger_post's.
-- The posting adds {payout: {id, created_at, customer_id}}.
--
-- payout_create_refusal is that order of refusals, decided from the request r and what the
-- caller read of its receiver (customer_by_identifier: the customer's id, status and wallet, all
-- NULL when the request names none that exists) and of the business's whitelist
-- (p_unlisted: the business enforces its whitelist and the receiver is not on it); NULL
-- when none applies. It reads no table, so payout_create (one payout) and payout_create_set
-- (a bulk payout's items set-wise) decide by the same rule; STABLE, as format is, so that the
-- planner inlines it into a calling statement.
CREATE OR REPLACE FUNCTION payout_create_refusal(r jsonb, p_customer uuid, p_status text, p_wallet uuid, p_unlisted boolean)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN ledger_amount_problem(r->>'payout_amount') IS NOT NULL THEN
      ledger_refusal('VALIDATION_ERROR', ledger_amount_problem(r->>'payout_amount'), '/payout_amount')
    WHEN customer_identifier_count(r) <> 1 THEN
      ledger_refusal('VALIDATION_ERROR',
        format('exactly one of customer_id, walletAccountNumber and mobileNumber must be present (%s given)', customer_identifier_count(r)),
        '/customer_id')
    WHEN p_customer IS NULL THEN
      ledger_refusal('CUSTOMER_NOT_FOUND', format('No customer with %s %s for this business.',
        CASE WHEN jsonb_exists(r, 'customer_id') THEN 'id' WHEN jsonb_exists(r, 'walletAccountNumber') THEN 'wallet account number' ELSE 'mobile number' END,
        coalesce(r->>'customer_id', r->>'walletAccountNumber', r->>'mobileNumber')))
    WHEN p_status = 'ACTIVE' AND p_unlisted THEN
      ledger_refusal('PAYOUT_RECEIVER_NOT_WHITELISTED',
        format('The business enforces its payout whitelist and customer %s is not on it.', p_customer))
    WHEN p_status <> 'ACTIVE' OR p_wallet IS NULL THEN
      ledger_refusal('CUSTOMER_NOT_ACTIVE', format('Customer %s is %s; payouts go to ACTIVE customers only.', p_customer, p_status))
  END
$$;

CREATE OR REPLACE FUNCTION payout_create(p_business uuid, r jsonb) RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  receiver customers;
  unlisted boolean;
  refusal jsonb;
  posting jsonb;
  payout_id uuid;
  p payouts;
BEGIN
  IF ledger_amount_problem(r->>'payout_amount') IS NULL AND customer_identifier_count(r) = 1 THEN
    receiver := customer_by_identifier(p_business, r);
    SELECT whitelist_enforced INTO unlisted FROM payout_settings WHERE business_id = p_business;
    IF unlisted THEN
      PERFORM 1 FROM payout_whitelist_entries WHERE business_id = p_business AND customer_id = receiver.id;
      unlisted := NOT FOUND;
    END IF;
    unlisted := coalesce(unlisted, false);
  END IF;
  refusal := payout_create_refusal(r, receiver.id, receiver.status, receiver.wallet_id, unlisted);
  IF refusal IS NOT NULL THEN
    RETURN refusal;
  END IF;
  posting := ledger_post(p_business, 'CUSTOMER_PAYOUT', 'PAYOUT', NULL, 'IN_TRANSIT', NULL,
                         r->>'payout_amount', NULL, r->>'external_reference', r->>'payout_purpose');
  IF posting->'refusal' IS NOT NULL THEN
    RETURN posting;
  END IF;
  payout_id := gen_random_uuid();
  INSERT INTO payouts (id, business_id, customer_id, wallet_id, amount, currency, status, purpose, external_reference,
                       creation_transaction_id, created_at, updated_at)
  VALUES (payout_id, p_business, receiver.id, receiver.wallet_id, (posting->>'amount')::numeric, posting->>'currency', 'PENDING',
          r->>'payout_purpose', r->>'external_reference', (posting->>'id')::uuid,
          (posting->>'created_at')::timestamptz, (posting->>'created_at')::timestamptz)
  RETURNING * INTO p;
  PERFORM payout_event(p, posting->>'reference');
  RETURN posting || jsonb_build_object('payout', jsonb_build_object('id', p.id, 'created_at', p.created_at, 'customer_id', p.customer_id));
END $$;

-- One item of a bulk payout (payout_create_batch):
-- payout_create's result, and with a refusal also `customer_id`, the customer the item
-- names when it names exactly one that exists (for the bulk payout's report).
CREATE OR REPLACE FUNCTION payout_create_item(p_business uuid, r jsonb) RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  result jsonb := payout_create(p_business, r);
BEGIN
  IF result->'refusal' IS NOT NULL AND customer_identifier_count(r) = 1 THEN
    RETURN result || jsonb_build_object('customer_id', (customer_by_identifier(p_business, r)).id);
  END IF;
  RETURN result;
END $$;
