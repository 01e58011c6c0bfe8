-- The audit log is append-only: no row is ever changed, the table is never truncated, and a
-- row is deleted only by the retention purge (purgeAuditEvents, src/audit/audit.ts), which
-- names its retention in the transaction-local setting `audit.retention_days`. Only rows
-- older than that many days go, and never fewer than 30 days: a caller who sets the
-- setting itself erases at most what the shortest retention would (openapi/DESIGN.md,
-- "The audit log"). The trigger binds every role, superusers included.
--
-- The triggers are defined here, beside their function (see ledger_entries_immutable.sql).
CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  retention text := current_setting('audit.retention_days', true);
BEGIN
  IF TG_OP = 'DELETE' AND retention ~ '^[0-9]{1,6}$'
     AND OLD.created_at < now() - make_interval(days => greatest(retention::int, 30)) THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit events are append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;

DROP TRIGGER IF EXISTS audit_events_no_change ON audit_events;
CREATE TRIGGER audit_events_no_change BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
DROP TRIGGER IF EXISTS audit_events_no_truncate ON audit_events;
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();
