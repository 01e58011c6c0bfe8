-- A payout's events: payout_event_data is the payout as its events show it
-- (shared.yaml PayoutEventData) at the step whose transaction is p_reference, and
-- payout_event emits `payout.<status>` in the caller's transaction (event_emit,
-- src/events/sql/event_emit.sql), so an event exists exactly when its step does. It is
-- stamped with the clock's time, not the transaction's, so that two steps in one
-- transaction (as the sandbox helper makes them) are listed in their order.
--
-- PL/pgSQL, not SQL: on Citus, a statement of an SQL function that reads a distributed
-- table with the function's arguments cannot be planned (docs/scale-out.md).
--
-- payout_event_object builds the data from the values themselves (the payout's fields, the
-- step's reference and the wallet's account number): a batch of payouts stepped set-wise
-- (payout_create_set, payout_move_set) has them in arrays and emits all its events in one
-- statement (event_emit_set), which may not pass a table's row to a function (a
-- distributed table's row is a shard's row on its node). SQL, STABLE as to_char is, so the
-- planner inlines it there.
CREATE OR REPLACE FUNCTION payout_event_object(
  p_id uuid, p_reference text, p_status text, p_amount numeric, p_currency text, p_customer uuid,
  p_wallet_account_number text, p_external_reference text, p_failure_code text, p_at timestamptz
) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'payout_id', p_id, 'transaction_id', p_reference, 'status', p_status, 'amount', p_amount::text,
    'currency', p_currency, 'customer_id', p_customer, 'wallet_account_number', p_wallet_account_number,
    'external_reference', p_external_reference, 'failure_code', p_failure_code,
    'occurred_at', to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
$$;

CREATE OR REPLACE FUNCTION payout_event_data(p payouts, p_reference text) RETURNS jsonb LANGUAGE plpgsql STABLE
  SET enable_seqscan = off
AS $$
DECLARE
  wallet_number text;
BEGIN
  SELECT account_number INTO wallet_number FROM accounts WHERE business_id = p.business_id AND id = p.wallet_id;
  RETURN payout_event_object(p.id, p_reference, p.status, p.amount, p.currency, p.customer_id, wallet_number,
    p.external_reference, p.failure_code, p.updated_at);
END $$;

CREATE OR REPLACE FUNCTION payout_event(p payouts, p_reference text) RETURNS void LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
BEGIN
  PERFORM event_emit(p.business_id, 'payout.' || lower(p.status), payout_event_data(p, p_reference), p_created_at => clock_timestamp());
END $$;
