-- Ledger entries are never changed or deleted: a correction is a new ledger
-- transaction (a refund or a reversal), so an account's entries always add up to
-- its balance and every balance_after stays true.
--
-- The trigger is defined here, beside its function, so that a change to either is
-- applied with the other. CREATE OR REPLACE TRIGGER needs PostgreSQL 14 and does
-- not exist for constraint triggers; dropping and creating it again inside the
-- applier's transaction is the same for every supported version.
CREATE OR REPLACE FUNCTION ledger_entries_immutable() RETURNS trigger LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
BEGIN
  RAISE EXCEPTION 'ledger entries are immutable';
END $$;

DROP TRIGGER IF EXISTS ledger_entries_no_update ON ledger_entries;
CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_entries_immutable();
