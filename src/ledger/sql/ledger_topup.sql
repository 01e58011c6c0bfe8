-- TOPUP: money enters the closed loop, the settlement account → the operational
-- account, with the `topup.complete` event emitted in the same transaction (event_emit,
-- src/events/sql/event_emit.sql: the event exists exactly when the money does), its data
-- in v4's shape (`occurred_at`; src/kernel/versioning/changes.ts renders it at every version).
-- Request: {amount, currency?, external_reference?, notes?}. Refusals: ledger_post's.
CREATE OR REPLACE FUNCTION ledger_topup(p_business uuid, r jsonb) RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  posting jsonb := ledger_post(p_business, 'TOPUP', 'SETTLEMENT', NULL, 'OPERATIONAL', NULL,
                               r->>'amount', r->>'currency', r->>'external_reference', r->>'notes');
BEGIN
  IF posting->'refusal' IS NULL THEN
    PERFORM event_emit(p_business, 'topup.complete', jsonb_build_object(
      'transaction_id', posting->'id', 'business_id', p_business, 'amount', posting->'amount', 'currency', posting->'currency',
      'occurred_at', to_char((posting->>'created_at')::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')), 'v4');
  END IF;
  RETURN posting;
END $$;
