-- Every event of the event outbox is pending until the relay dispatches it: its row in
-- `outbox_pending` (why a table of its own: src/db/migrations/024_baseline.ts) is
-- inserted here, in the producer's transaction, and deleted in the transaction that makes
-- its deliveries (takePendingEvents, src/events/outbox.ts, which the webhooks' relay calls).
-- Producers emit events (event_emit.sql, emitEvent) and nothing else; the outbox itself is
-- never updated.
--
-- The trigger is defined here, beside its function (see ledger_entries_immutable.sql).
CREATE OR REPLACE FUNCTION outbox_event_pending() RETURNS trigger LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
BEGIN
  INSERT INTO outbox_pending (created_at, event_id, business_id) VALUES (NEW.created_at, NEW.id, NEW.business_id);
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS outbox_events_pending ON outbox_events;
CREATE TRIGGER outbox_events_pending AFTER INSERT ON outbox_events
  FOR EACH ROW EXECUTE FUNCTION outbox_event_pending();
