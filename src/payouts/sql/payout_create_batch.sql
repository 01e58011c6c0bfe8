-- The items of a bulk payout, in one statement (src/payouts/bulk.ts): p_items is a JSON
-- array of E4 request bodies, each created exactly as payout_create creates one payout
-- (its ledger transaction, its `payouts` row, its `payout.pending` event, or its refusal,
-- which writes nothing), in order, in the caller's transaction. Returns the JSON array of
-- their results, in order; a refusal also carries `customer_id`, the customer the item
-- names when it names exactly one that exists (for the bulk payout's report).
--
-- One call instead of one round trip per item: the payout account's row lock, which a
-- bulk payout holds from its first item to its commit, is then held for the items' work
-- alone. The business's payout and in-transit accounts, which every item debits and
-- credits, are locked first (ascending id, as ledger_post would lock them) and their
-- balances held for the call (ledger_hold_balances): each row is written once, not once
-- per item.
CREATE OR REPLACE FUNCTION payout_create_batch(p_business uuid, p_items jsonb) RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off -- point lookups keep their index: openapi/DESIGN.md, "Plans that outlive a small table"
AS $$
DECLARE
  item jsonb;
  result jsonb;
  results jsonb[] := '{}';
BEGIN
  PERFORM ledger_hold_balances(p_business, payout_accounts(p_business));
  FOR item IN SELECT value FROM jsonb_array_elements(p_items) LOOP
    result := payout_create(p_business, item);
    IF result->'refusal' IS NOT NULL AND payout_receiver_count(item) = 1 THEN
      result := result || jsonb_build_object('customer_id', (payout_receiver(p_business, item)).id);
    END IF;
    results := array_append(results, result);
  END LOOP;
  PERFORM ledger_release_balances();
  RETURN to_jsonb(results);
END $$;
