-- The items of a bulk payout created set-wise (payout_create_batch): each item exactly as
-- payout_create creates one payout (its refusal by payout_create_refusal, or its ledger
-- transaction, its `payouts` row and its `payout.pending` event), by a fixed number of
-- statements whatever the number of items, but for one lookup of each item's receiver
-- (customer_by_identifier, one statement by the index its identifier names); NULL, having written
-- nothing, when the ledger would refuse one of the accepted items (the payout account's funds
-- run out part-way), and the items are then created one by one (payout_create_item), which
-- decides where.
--
-- p_items is a JSON array of E4 request bodies; the business's payout and in-transit
-- accounts are locked by the caller (ascending id, FOR NO KEY UPDATE). Returns the items'
-- results in order, as payout_create_item answers them (a refusal also carries the
-- `customer_id` the item names when it names exactly one that exists).
--
-- The statements:
--   1. each item's receiver (customer_by_identifier), whitelist standing and the wallet's
--      account number its event shows, each table read alone by key (the business a value, so
--      that Citus caches each statement's plan, docs/scale-out.md); then each item's refusal
--      from those values, into arrays;
--   2. the accepted items' postings (ledger_move_set, their sides named as payout_create's
--      ledger_post names them);
--   3. the payouts; 4. their events (payout_event_object, event_emit_set); 5. the results.
CREATE OR REPLACE FUNCTION payout_create_set(p_business uuid, p_items jsonb) RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  enforced boolean;
  -- Every item, in order: its receiver's id, status and wallet (customer_by_identifier); the
  -- receivers on the whitelist; the receivers' wallets' account numbers, {id: number}.
  r_ids uuid[]; r_statuses text[]; r_wallets uuid[]; listed uuid[]; numbers jsonb;
  -- Every item, in order: its request, its refusal and the customer it names (when it names one).
  requests jsonb[]; refusals jsonb[]; named uuid[];
  -- The accepted items, in order: their item number, request, customer, wallet and its number.
  ns int[]; a_requests jsonb[]; customers uuid[]; wallets uuid[]; wallet_numbers text[];
  postings jsonb;
  payout_ids uuid[];
BEGIN
  -- 1. The receivers (one lookup each), the whitelist and the wallets' numbers, each table read
  -- by key in a statement of its own; then the refusals, from those values alone.
  SELECT array_agg(c.id ORDER BY i.n), array_agg(c.status ORDER BY i.n), array_agg(c.wallet_id ORDER BY i.n)
    INTO r_ids, r_statuses, r_wallets
    FROM jsonb_array_elements(p_items) WITH ORDINALITY i(r, n)
    CROSS JOIN LATERAL customer_by_identifier(p_business, i.r) c;
  SELECT whitelist_enforced INTO enforced FROM payout_settings WHERE business_id = p_business;
  enforced := coalesce(enforced, false);
  IF enforced THEN
    SELECT array_agg(customer_id) INTO listed FROM payout_whitelist_entries WHERE business_id = p_business AND customer_id = ANY(r_ids);
  END IF;
  SELECT jsonb_object_agg(id, account_number) INTO numbers FROM accounts WHERE business_id = p_business AND id = ANY(r_wallets);
  WITH x AS MATERIALIZED (
    SELECT i.n::int AS n, i.r, u.id, u.wallet_id,
           payout_create_refusal(i.r, u.id, u.status, u.wallet_id, enforced AND NOT coalesce(u.id = ANY(listed), false)) AS refusal
      FROM jsonb_array_elements(p_items) WITH ORDINALITY i(r, n)
      JOIN unnest(r_ids, r_statuses, r_wallets) WITH ORDINALITY u(id, status, wallet_id, n) ON u.n = i.n
  )
  SELECT array_agg(x.r ORDER BY x.n), array_agg(x.refusal ORDER BY x.n),
         array_agg(CASE WHEN customer_identifier_count(x.r) = 1 THEN x.id END ORDER BY x.n),
         array_agg(x.n ORDER BY x.n) FILTER (WHERE x.refusal IS NULL),
         array_agg(x.r ORDER BY x.n) FILTER (WHERE x.refusal IS NULL),
         array_agg(x.id ORDER BY x.n) FILTER (WHERE x.refusal IS NULL),
         array_agg(x.wallet_id ORDER BY x.n) FILTER (WHERE x.refusal IS NULL),
         array_agg(numbers->>(x.wallet_id::text) ORDER BY x.n) FILTER (WHERE x.refusal IS NULL)
    INTO requests, refusals, named, ns, a_requests, customers, wallets, wallet_numbers
    FROM x;
  IF ns IS NOT NULL THEN
    -- 2. The postings, payout_create's: the payout account → the in-transit account.
    postings := ledger_move_set(p_business,
      (SELECT jsonb_agg(jsonb_build_object('type', 'CUSTOMER_PAYOUT', 'sides', jsonb_build_array('PAYOUT', NULL, 'IN_TRANSIT', NULL),
                          'request', jsonb_build_object('amount', r->>'payout_amount', 'external_reference', r->>'external_reference',
                                                        'notes', r->>'payout_purpose')) ORDER BY k)
         FROM unnest(a_requests) WITH ORDINALITY u(r, k)),
      payout_accounts(p_business))::jsonb;
    IF postings IS NULL THEN
      RETURN NULL;
    END IF;
    payout_ids := ARRAY(SELECT gen_random_uuid() FROM unnest(ns));
    -- 3. The payouts, as payout_create inserts each.
    INSERT INTO payouts (id, business_id, customer_id, wallet_id, amount, currency, status, purpose, external_reference,
                         creation_transaction_id, created_at, updated_at)
    SELECT u.id, p_business, u.customer, u.wallet, (u.posting->>'amount')::numeric, u.posting->>'currency', 'PENDING',
           u.r->>'payout_purpose', u.r->>'external_reference', (u.posting->>'id')::uuid,
           (u.posting->>'created_at')::timestamptz, (u.posting->>'created_at')::timestamptz
      FROM ROWS FROM (unnest(payout_ids), unnest(customers), unnest(wallets), unnest(a_requests), jsonb_array_elements(postings))
             u(id, customer, wallet, r, posting);
    -- 4. Their `payout.pending` events, as payout_event emits each, in item order.
    PERFORM event_emit_set(p_business, array_agg('payout.pending'::text ORDER BY u.k),
             array_agg(payout_event_object(u.id, u.posting->>'reference', 'PENDING', (u.posting->>'amount')::numeric, u.posting->>'currency',
                                           u.customer, u.number, u.r->>'external_reference', NULL, (u.posting->>'created_at')::timestamptz)
                       ORDER BY u.k))
       FROM ROWS FROM (unnest(payout_ids), unnest(customers), unnest(wallet_numbers), unnest(a_requests), jsonb_array_elements(postings))
              WITH ORDINALITY u(id, customer, number, r, posting, k);
  END IF;
  -- 5. The results, in item order: payout_create_item's.
  RETURN (SELECT jsonb_agg(coalesce(a.result, u.refusal || CASE WHEN customer_identifier_count(u.r) = 1
                                                                THEN jsonb_build_object('customer_id', u.named) ELSE '{}' END)
                           ORDER BY u.n)
            FROM ROWS FROM (unnest(requests), unnest(refusals), unnest(named)) WITH ORDINALITY u(r, refusal, named, n)
            LEFT JOIN (SELECT a.n, a.posting || jsonb_build_object('payout', jsonb_build_object(
                                'id', a.id, 'created_at', (a.posting->>'created_at')::timestamptz, 'customer_id', a.customer)) AS result
                         FROM ROWS FROM (unnest(ns), unnest(payout_ids), unnest(customers), jsonb_array_elements(postings)) a(n, id, customer, posting)) a
              ON a.n = u.n);
END $$;
