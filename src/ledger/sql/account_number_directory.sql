-- The account number directory: every account's number is entered in `account_numbers`
-- (number → business and account; src/db/migrations/025_business_keys.ts) in the
-- transaction that creates the account, so that a number names one account across all
-- businesses even when each business's accounts live on a node of their own. Its
-- primary key is the global rule: a second account with a number already taken fails
-- as the old unique constraint of `accounts` did (23505). Numbers never change.
--
-- The trigger is defined here, beside its function (see ledger_entries_immutable.sql).
CREATE OR REPLACE FUNCTION account_number_directory() RETURNS trigger LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
BEGIN
  INSERT INTO account_numbers (account_number, business_id, account_id) VALUES (NEW.account_number, NEW.business_id, NEW.id);
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS accounts_number_directory ON accounts;
CREATE TRIGGER accounts_number_directory AFTER INSERT ON accounts
  FOR EACH ROW EXECUTE FUNCTION account_number_directory();
