-- Moves the counts per state of the bulk payouts that payouts of business p_business
-- belong to (bulk_payouts.processing_count, completed_count, failed_count; migration
-- 023): p_changes is a JSON array of {payout_id, from, to}, each a payout whose state
-- went from `from` to `to` in the caller's transaction. Payouts of no bulk payout are
-- skipped. Called by every move of a payout (payout_move, once per move; payout_move_batch,
-- once per batch with every payout's first and last state), so the counts change in the
-- transaction that changes the states.
--
-- Lock order (openapi/DESIGN.md, "Locks are taken in one order"): the bulk payouts'
-- rows are locked last, after the payouts and the accounts, ascending id, one UPDATE
-- each; a batch writes each row once, so its many payouts of one bulk payout do not leave
-- a version of the row per payout (see ledger_hold_balances for what those cost).
CREATE OR REPLACE FUNCTION payout_bulk_count(p_business uuid, p_changes jsonb) RETURNS void LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  d record;
BEGIN
  FOR d IN
    SELECT i.bulk_payout_id AS id,
           sum((c->>'to' = 'PROCESSING')::int - (c->>'from' = 'PROCESSING')::int) AS processing,
           sum((c->>'to' = 'COMPLETED')::int - (c->>'from' = 'COMPLETED')::int) AS completed,
           sum((c->>'to' = 'FAILED')::int - (c->>'from' = 'FAILED')::int) AS failed
      FROM jsonb_array_elements(p_changes) c
      JOIN bulk_payout_items i ON i.payout_id = (c->>'payout_id')::uuid AND i.business_id = p_business
     GROUP BY i.bulk_payout_id
     ORDER BY i.bulk_payout_id
  LOOP
    UPDATE bulk_payouts
       SET processing_count = processing_count + d.processing,
           completed_count = completed_count + d.completed,
           failed_count = failed_count + d.failed
     WHERE id = d.id AND business_id = p_business;
  END LOOP;
END $$;
