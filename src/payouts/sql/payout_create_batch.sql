-- The items of a bulk payout, in one statement (src/payouts/bulk.ts): p_items is a JSON
-- array of E4 request bodies, each created exactly as payout_create creates one payout
-- (its ledger transaction, its `payouts` row, its `payout.pending` event, or its refusal,
-- which writes nothing), in order, in the caller's transaction: each through
-- payout_create_item (a refusal also carries `customer_id`, for the bulk payout's
-- report). Returns the JSON array of their results, in order.
--
-- One call instead of one round trip per item: the payout account's row lock, which a
-- bulk payout holds from its first item to its commit, is then held for the items' work
-- alone. The business's payout and in-transit accounts, which every item debits and
-- credits, are locked first (ascending id, as ledger_post would lock them). The items are
-- then created set-wise by a fixed number of statements (payout_create_set); when the
-- ledger would refuse one of them, which the set-wise path leaves to this one, or on Citus
-- (database_distributed), one by one,
-- with the two accounts' balances held for the call (ledger_hold_balances,
-- ledger_release_balances): each row is written once, not once per item.
CREATE OR REPLACE FUNCTION payout_create_batch(p_business uuid, p_items jsonb) RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  own uuid[] := payout_accounts(p_business);
  item jsonb;
  results jsonb[] := '{}';
  created jsonb;
BEGIN
  PERFORM 1 FROM accounts WHERE id = ANY(own) AND business_id = p_business ORDER BY id FOR NO KEY UPDATE;
  IF NOT database_distributed() THEN
    created := payout_create_set(p_business, p_items);
  END IF;
  IF created IS NOT NULL THEN
    RETURN created;
  END IF;
  PERFORM ledger_hold_balances(p_business, own);
  FOR item IN SELECT value FROM jsonb_array_elements(p_items) LOOP
    results := array_append(results, payout_create_item(p_business, item));
  END LOOP;
  PERFORM ledger_release_balances(p_business);
  RETURN to_jsonb(results);
END $$;
