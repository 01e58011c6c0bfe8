-- Moves the counts per state of the bulk payouts that payouts of business p_business
-- belong to (bulk_payouts.processing_count, completed_count, failed_count; migration
-- 023): p_changes is a JSON array of {payout_id, from, to}, each a payout whose state
-- went from `from` to `to` in the caller's transaction. Payouts of no bulk payout are
-- skipped. Called by every move of a payout (payout_move, once per move; payout_move_batch,
-- once per batch with every payout's first and last state), so the counts change in the
-- transaction that changes the states. The payouts' bulk payouts are read first, one table
-- by key, and the counts summed over those values (Citus caches each plan, docs/scale-out.md).
--
-- Lock order (openapi/DESIGN.md, "Locks are taken in one order"): the bulk payouts'
-- rows are locked last, after the payouts and the accounts, ascending id, one UPDATE
-- each; a batch writes each row once, so its many payouts of one bulk payout do not leave
-- a version of the row per payout (see ledger_hold_balances for what those cost).
CREATE OR REPLACE FUNCTION payout_bulk_count(p_business uuid, p_changes jsonb) RETURNS void LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  -- The bulk payout of each payout that has one, {payout id: bulk payout id}.
  bulks jsonb;
  ids uuid[];
  d record;
BEGIN
  SELECT array_agg((c->>'payout_id')::uuid) INTO ids FROM jsonb_array_elements(p_changes) c;
  SELECT jsonb_object_agg(payout_id, bulk_payout_id) INTO bulks
    FROM bulk_payout_items WHERE business_id = p_business AND payout_id = ANY(ids);
  IF bulks IS NULL THEN
    RETURN;
  END IF;
  FOR d IN
    SELECT (bulks->>(c->>'payout_id'))::uuid AS id,
           sum((c->>'to' = 'PROCESSING')::int - (c->>'from' = 'PROCESSING')::int) AS processing,
           sum((c->>'to' = 'COMPLETED')::int - (c->>'from' = 'COMPLETED')::int) AS completed,
           sum((c->>'to' = 'FAILED')::int - (c->>'from' = 'FAILED')::int) AS failed
      FROM jsonb_array_elements(p_changes) c
     WHERE bulks ? (c->>'payout_id')
     GROUP BY 1
     ORDER BY 1
  LOOP
    UPDATE bulk_payouts
       SET processing_count = processing_count + d.processing,
           completed_count = completed_count + d.completed,
           failed_count = failed_count + d.failed
     WHERE business_id = p_business AND id = d.id;
  END LOOP;
END $$;
