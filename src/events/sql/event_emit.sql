-- The event outbox's door in SQL: an event is recorded in the transaction of its effect
-- (so it exists exactly when its effect does), as one row of `outbox_events`, which the
-- trigger of outbox_event_pending.sql makes pending for the webhooks' relay. Every SQL
-- producer (the ledger's topup, the payouts' steps) calls these; TypeScript producers call
-- emitEvent (src/events/outbox.ts). The outbox is insert-only.
--
-- An event: its business, its code (`topup.complete`, `payout.pending` …), its data (jsonb,
-- in the shape of API version p_data_version: src/kernel/versioning/versionChange.ts
-- renders it at every version), an id drawn at random (gen_random_uuid), and its time
-- (created_at, which orders the business's events).
--
-- event_emit records one and returns its id. Its defaults are the column's: v3's shape
-- (src/db/migrations/038_event_data_versions.ts) and the transaction's time; a producer
-- that writes two steps in one transaction passes clock_timestamp() so that they are listed
-- in their order. Its id is drawn before the INSERT, which then calls no volatile function
-- (docs/scale-out.md, "Statements a worker plans once").
CREATE OR REPLACE FUNCTION event_emit(
  p_business uuid, p_code text, p_data jsonb,
  p_data_version text DEFAULT 'v3', p_created_at timestamptz DEFAULT CURRENT_TIMESTAMP
) RETURNS uuid LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  event_id uuid := gen_random_uuid();
BEGIN
  INSERT INTO outbox_events (id, business_id, code, data, data_version, created_at)
  VALUES (event_id, p_business, p_code, p_data, p_data_version, p_created_at);
  RETURN event_id;
END $$;

-- event_emit_set records a batch's events in one statement (a set-wise producer such as
-- payout_create_set emits all its events at once, not row by row): event k has code
-- p_codes[k] and data p_data[k] (arrays of one length; NULL for none). Each event is in
-- v3's shape (the column's default) and stamped with the clock's time when the batch is
-- written plus k microseconds, so that the batch's events are listed in the arrays' order
-- (two readings of the clock may be equal).
CREATE OR REPLACE FUNCTION event_emit_set(p_business uuid, p_codes text[], p_data jsonb[]) RETURNS void LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  ids uuid[] := ARRAY(SELECT gen_random_uuid() FROM generate_series(1, cardinality(p_codes)));
  stamped timestamptz := clock_timestamp();
BEGIN
  INSERT INTO outbox_events (id, business_id, code, data, created_at)
  SELECT ids[u.k], p_business, u.code, u.data, stamped + u.k * interval '1 microsecond'
    FROM ROWS FROM (unnest(p_codes), unnest(p_data)) WITH ORDINALITY u(code, data, k)
   ORDER BY u.k;
END $$;
