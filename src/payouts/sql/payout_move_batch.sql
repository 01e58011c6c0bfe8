-- Many payout moves of business p_business in one transaction (the payout processing
-- of src/payouts/processing.ts works through its jobs in batches): p_moves is a JSON
-- array of {payout_id, from: [states], to, failure_code}, each applied exactly as
-- payout_move would apply it alone (its refusal, its ledger transaction, its event).
-- Returns the JSON array of their results, in order.
--
-- Lock order (openapi/DESIGN.md, "Locks are taken in one order"): the payouts first,
-- ascending id, then, when a move leaves transit, every account the moves can post to (the
-- payouts' wallets, then the in-transit and payout accounts, each ascending id: ledger_post's
-- order); payout_move's own locks then find the rows held. Two batches, or a batch and a
-- single move, thus never wait on each other in a cycle, however many of their payouts go
-- to the same wallet. The moves are then applied set-wise (payout_move_set); when that path
-- declines (a payout named twice), or on Citus (database_distributed), one by one, with
-- the in-transit and payout accounts' balances, which every move out of transit changes,
-- held for the call (ledger_hold_balances, ledger_release_balances): each row is written
-- once, not once per move. The counts
-- of the bulk payouts the payouts belong to move once, after the moves, from each payout's
-- state before the batch to its state after it (payout_bulk_count: their rows are locked
-- last).
CREATE OR REPLACE FUNCTION payout_move_batch(p_business uuid, p_moves jsonb) RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  payout_ids uuid[];
  wallet_ids uuid[];
  account_ids uuid[];
  own uuid[];
  results jsonb;
  move jsonb;
  moved jsonb[] := '{}';
  before jsonb;
  changes jsonb;
BEGIN
  SELECT array_agg(DISTINCT request_uuid(x->>'payout_id')) INTO payout_ids FROM jsonb_array_elements(p_moves) x;
  PERFORM 1 FROM payouts WHERE business_id = p_business AND id = ANY(payout_ids) ORDER BY id FOR NO KEY UPDATE;
  SELECT jsonb_object_agg(id, status), array_agg(wallet_id) INTO before, wallet_ids
    FROM payouts WHERE business_id = p_business AND id = ANY(payout_ids);
  -- Only moves out of transit post money (a submission to the bank moves none), so a
  -- batch of submissions locks no account and does not wait on the hot ones.
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_moves) x WHERE x->>'to' IN ('COMPLETED', 'FAILED')) THEN
    own := payout_accounts(p_business);
    SELECT array_agg(DISTINCT a.id) INTO account_ids FROM unnest(wallet_ids || own) a(id) WHERE a.id IS NOT NULL;
    PERFORM 1 FROM accounts WHERE business_id = p_business AND id = ANY(account_ids) ORDER BY kind <> 'WALLET', id FOR NO KEY UPDATE;
  END IF;
  -- The common batch, each payout named once: a fixed number of statements (not on Citus: database_distributed).
  IF NOT database_distributed() THEN
    results := payout_move_set(p_business, p_moves, account_ids);
  END IF;
  IF results IS NULL THEN
    IF own IS NOT NULL THEN
      PERFORM ledger_hold_balances(p_business, own);
    END IF;
    FOR move IN SELECT value FROM jsonb_array_elements(p_moves) LOOP
      moved := array_append(moved, payout_move_item(p_business, move));
    END LOOP;
    PERFORM ledger_release_balances(p_business);
    results := to_jsonb(moved);
  END IF;
  SELECT jsonb_agg(jsonb_build_object('payout_id', id, 'from', before->>id::text, 'to', status)) INTO changes
    FROM payouts WHERE business_id = p_business AND id = ANY(payout_ids) AND status <> before->>id::text;
  IF changes IS NOT NULL THEN
    PERFORM payout_bulk_count(p_business, changes);
  END IF;
  RETURN results;
END $$;
