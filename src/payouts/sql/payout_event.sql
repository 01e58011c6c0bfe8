-- A payout's events: payout_event_data is the payout as its events show it
-- (shared.yaml PayoutEventData) at the step whose transaction is p_reference, and
-- payout_event writes `payout.<status>` to the outbox in the caller's transaction,
-- so an event exists exactly when its step does. It is stamped with the clock's
-- time, not the transaction's, so that two steps in one transaction (as the
-- sandbox helper makes them) are listed in their order.
--
-- PL/pgSQL, not SQL: on Citus, a statement of an SQL function that reads a distributed
-- table with the function's arguments cannot be planned (docs/scale-out.md).
CREATE OR REPLACE FUNCTION payout_event_data(p payouts, p_reference text) RETURNS jsonb LANGUAGE plpgsql STABLE
  SET enable_seqscan = off
AS $$
BEGIN
  RETURN jsonb_build_object(
    'payout_id', p.id, 'transaction_id', p_reference, 'status', p.status, 'amount', p.amount::text,
    'currency', p.currency, 'customer_id', p.customer_id,
    'wallet_account_number', (SELECT account_number FROM accounts WHERE id = p.wallet_id AND business_id = p.business_id),
    'external_reference', p.external_reference, 'failure_code', p.failure_code,
    'occurred_at', to_char(p.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
END $$;

CREATE OR REPLACE FUNCTION payout_event(p payouts, p_reference text) RETURNS void LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
BEGIN
  INSERT INTO outbox_events (id, business_id, code, data, created_at)
  VALUES (gen_random_uuid(), p.business_id, 'payout.' || lower(p.status), payout_event_data(p, p_reference), clock_timestamp());
END $$;
