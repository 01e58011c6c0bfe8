-- Every ledger transaction's entries sum to zero. Checked at commit (a deferred
-- constraint trigger), when all of a transaction's entries are in, so that no
-- writer, however it inserts them, can commit money that appears or vanishes. Nor
-- can a transaction commit while it still holds balances (ledger_hold_balances): the
-- movements posted against them would be lost with the setting.
--
-- The trigger is defined here, beside its function (see ledger_entries_immutable.sql).
CREATE OR REPLACE FUNCTION ledger_transaction_balanced() RETURNS trigger LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  total numeric;
BEGIN
  IF ledger_held_balances() IS NOT NULL THEN
    RAISE EXCEPTION 'ledger balances are still held at commit: the batch did not call ledger_release_balances';
  END IF;
  SELECT COALESCE(SUM(amount), 0) INTO total FROM ledger_entries WHERE transaction_id = NEW.transaction_id AND business_id = NEW.business_id;
  IF total <> 0 THEN
    RAISE EXCEPTION 'ledger transaction % is unbalanced by %', NEW.transaction_id, total;
  END IF;
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS ledger_entries_balanced ON ledger_entries;
CREATE CONSTRAINT TRIGGER ledger_entries_balanced AFTER INSERT ON ledger_entries
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_transaction_balanced();
