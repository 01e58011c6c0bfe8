-- Posts one balanced ledger transaction of type p_type, p_amount from one account
-- of business p_business (the debit side) to another (the credit side), in the
-- caller's transaction: locks both accounts, checks every rule, inserts the
-- transaction and its two entries (a debit and a credit of the same amount, each
-- with the balance after it, each carrying the business) and updates both
-- balances. Every movement of money goes through here, so its rules are written once.
--
-- Each side is named by a kind and a value:
--   'WALLET', the wallet's id as the request sent it: anything that is not one of
--             the business's wallets is refused as WALLET_NOT_FOUND naming that value;
--   a business account kind ('OPERATIONAL', 'SETTLEMENT', 'PAYOUT', 'IN_TRANSIT')
--             and NULL: the business's account of that kind (one per kind; missing
--             means the business is: BUSINESS_NOT_FOUND);
--   NULL, an account id the caller read from the ledger itself (a reversal's
--             original sides): one that is missing, of another business, or the
--             same on both sides is a caller's bug and raises.
-- p_amount is the amount as the request sent it (VALIDATION_ERROR at /amount).
-- The transaction is in p_currency, else in the credit account's currency (the
-- accounts of a business share the business's currency).
--
-- Refusals, in this order, all decided before the first write: WALLET_NOT_FOUND
-- (debit side first), BUSINESS_NOT_FOUND, VALIDATION_ERROR, then the rules of each side
-- once the amount is known (ledger_side_refusal, written once for this function and for a
-- batch posted set-wise): WALLET_NOT_ACTIVE (debit side first), INSUFFICIENT_FUNDS,
-- BALANCE_LIMIT_EXCEEDED. The database guards on the tables (CHECK constraints,
-- immutable entries, balanced transactions at commit) still apply.
--
-- Returns the posting (ledger_posting_json) or the refusal (ledger_refusal).
--
-- Both accounts are locked in one order, a wallet before an account of the business's
-- own and otherwise the lower id first, each by its own single-row statement: concurrent
-- movements over the same accounts then queue in one order and never deadlock, and two
-- single-row statements cost less than one ordered query read through a cursor. The
-- business's own accounts come last because they are the hot rows: a batch locks them
-- after its plan, and holds them for its writes alone (ledger_move_set). The lock is FOR
-- NO KEY UPDATE (what the balance UPDATE takes anyway): a foreign-key check of another
-- transaction's insert naming the account (FOR KEY SHARE, e.g. a payout naming its wallet)
-- does not wait on it, which is what keeps the global lock order of openapi/DESIGN.md
-- ("Locks are taken in one order") free of cycles. This is the hot path of every transfer
-- and fund, so it stays in this one body rather than calling helpers.
--
-- Each entry is numbered in its account (entry_number: the account's last_entry_number + 1,
-- on the locked row), and the transaction and its entries are stamped greatest(now(), the
-- last entry time of either account): an account's entries then follow each other in time
-- and in number in the order they were posted (the order of their running balances), even
-- when a transaction that began earlier waited for the lock behind one that began later.
-- Neither comes from a sequence, whose values are one node's (a distributed database,
-- docs/scale-out.md). The last entry's number and time are on the account's row (written
-- with its balance), so nothing read here grows with the ledger; a held account's row is
-- written at the end of its batch, so its last entry of the batch so far is looked up.
-- Statements read an account's entries by (created_at, entry_number) from the index
-- ledger_entries (business_id, account_id, created_at, entry_number) (src/ledger/statements.ts):
-- each balance_after follows the one before it in that order, and an entry still in flight
-- (the account stays locked until it commits) sorts after every entry a reader can see, so
-- a cursor never steps over it.
--
-- The transaction's reference (`TXN` and 12 digits) is drawn at random and unique per
-- business (transactions_reference_unique): a draw that meets a reference already taken
-- (about one posting in 10^12 / the business's transactions) is drawn again.
--
-- Inside a batch that holds balances (ledger_hold_balances), a held account's balance is
-- the held one: it is read from there and changed there, and its row is written once at
-- the end of the batch (ledger_release_balances); an account not held is updated here.
CREATE OR REPLACE FUNCTION ledger_post(
  p_business uuid, p_type text,
  p_debit_kind text, p_debit text,
  p_credit_kind text, p_credit text,
  p_amount text, p_currency text,
  p_external_reference text, p_notes text, p_original uuid DEFAULT NULL
) RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  debit_id uuid;
  credit_id uuid;
  acc accounts;
  d accounts;
  c accounts;
  problem text;
  d_problem text;
  c_problem text;
  v_amount numeric(20,2);
  d_after numeric(20,2);
  c_after numeric(20,2);
  t transactions;
  v_at timestamptz;
  d_number bigint;
  c_number bigint;
  last record;
  held jsonb := ledger_held_balances();
  d_wallet boolean;
  c_wallet boolean;
  first_id uuid;
  -- The transaction's clock as a value: a write that calls now() is deparsed on every call by Citus.
  changed timestamptz := now();
  tid uuid;
  ref text;
BEGIN
  -- A business account is found by kind through the unique index of business accounts
  -- (kind <> 'WALLET'): the plan cached for any kind must not scan the business's wallets.
  IF p_debit_kind IS NULL OR p_debit_kind = 'WALLET' THEN
    debit_id := request_uuid(p_debit);
  ELSE
    SELECT id INTO debit_id FROM accounts WHERE business_id = p_business AND kind = p_debit_kind AND kind <> 'WALLET';
  END IF;
  IF p_credit_kind IS NULL OR p_credit_kind = 'WALLET' THEN
    credit_id := request_uuid(p_credit);
  ELSE
    SELECT id INTO credit_id FROM accounts WHERE business_id = p_business AND kind = p_credit_kind AND kind <> 'WALLET';
  END IF;

  -- The lock order: a wallet before an account of the business's own, else the lower id first.
  -- Sides read from the ledger (a reversal's) have their kinds looked up first.
  IF p_debit_kind IS NULL OR p_credit_kind IS NULL THEN
    SELECT kind = 'WALLET' INTO d_wallet FROM accounts WHERE business_id = p_business AND id = debit_id;
    SELECT kind = 'WALLET' INTO c_wallet FROM accounts WHERE business_id = p_business AND id = credit_id;
  ELSE
    d_wallet := p_debit_kind = 'WALLET';
    c_wallet := p_credit_kind = 'WALLET';
  END IF;
  first_id := CASE WHEN debit_id IS NULL OR credit_id IS NULL THEN coalesce(debit_id, credit_id)
                   WHEN d_wallet IS NOT DISTINCT FROM c_wallet THEN least(debit_id, credit_id) WHEN d_wallet THEN debit_id ELSE credit_id END;
  -- A side named a wallet is locked only if it is one: an id of another account named as a
  -- wallet is refused (WALLET_NOT_FOUND) and must not be locked out of order.
  SELECT * INTO acc FROM accounts WHERE id = first_id AND business_id = p_business
                                    AND (kind = 'WALLET' OR NOT (CASE WHEN first_id = debit_id THEN d_wallet ELSE c_wallet END)) FOR NO KEY UPDATE;
  IF acc.id = debit_id THEN d := acc; ELSIF acc.id IS NOT NULL THEN c := acc; END IF;
  IF debit_id <> credit_id THEN
    SELECT * INTO acc FROM accounts WHERE id = CASE WHEN first_id = debit_id THEN credit_id ELSE debit_id END AND business_id = p_business
                                      AND (kind = 'WALLET' OR NOT (CASE WHEN first_id = debit_id THEN c_wallet ELSE d_wallet END)) FOR NO KEY UPDATE;
    IF acc.id = debit_id THEN d := acc; ELSIF acc.id IS NOT NULL THEN c := acc; END IF;
  END IF;

  IF p_debit_kind = 'WALLET' AND (d.id IS NULL OR d.kind <> 'WALLET') THEN
    RETURN ledger_refusal('WALLET_NOT_FOUND', format('No wallet %s for this business.', p_debit));
  END IF;
  IF p_credit_kind = 'WALLET' AND (c.id IS NULL OR c.kind <> 'WALLET') THEN
    RETURN ledger_refusal('WALLET_NOT_FOUND', format('No wallet %s for this business.', p_credit));
  END IF;
  IF held ? d.id::text THEN d.balance := (held->>d.id::text)::numeric; END IF;
  IF held ? c.id::text THEN c.balance := (held->>c.id::text)::numeric; END IF;
  IF d.id IS NULL OR c.id IS NULL THEN
    IF p_debit_kind IS NULL OR p_credit_kind IS NULL THEN
      RAISE EXCEPTION 'ledger_post: accounts % and % are not two accounts of business %', p_debit, p_credit, p_business;
    END IF;
    RETURN ledger_refusal('BUSINESS_NOT_FOUND', format('No business %s.', p_business));
  END IF;
  problem := ledger_amount_problem(p_amount);
  IF problem IS NOT NULL THEN
    RETURN ledger_refusal('VALIDATION_ERROR', problem, '/amount');
  END IF;
  v_amount := round(p_amount::numeric, 2);

  d_problem := ledger_side_refusal(d.kind, d.status, d.can_overdraft, d.balance - v_amount, true);
  c_problem := ledger_side_refusal(c.kind, c.status, c.can_overdraft, c.balance + v_amount, false);
  IF d_problem = 'WALLET_NOT_ACTIVE' THEN
    RETURN ledger_refusal('WALLET_NOT_ACTIVE', format('%s is %s; only ACTIVE wallets move money.', ledger_describe(d), d.status));
  END IF;
  IF c_problem = 'WALLET_NOT_ACTIVE' THEN
    RETURN ledger_refusal('WALLET_NOT_ACTIVE', format('%s is %s; only ACTIVE wallets move money.', ledger_describe(c), c.status));
  END IF;
  IF d_problem = 'INSUFFICIENT_FUNDS' THEN
    RETURN ledger_refusal('INSUFFICIENT_FUNDS',
      format('%s has %s %s; %s %s was requested.', ledger_describe(d), d.balance, d.currency, v_amount, coalesce(p_currency, c.currency)));
  END IF;
  IF 'BALANCE_LIMIT_EXCEEDED' IN (d_problem, c_problem) THEN
    RETURN ledger_refusal('BALANCE_LIMIT_EXCEEDED', 'The movement would take a balance beyond ±999999999999999.99.');
  END IF;
  d_after := d.balance - v_amount;
  c_after := c.balance + v_amount;
  v_at := greatest(now(), d.last_entry_at, c.last_entry_at);
  d_number := d.last_entry_number + 1;
  c_number := c.last_entry_number + 1;
  IF held ? d.id::text THEN
    SELECT created_at, entry_number INTO last FROM ledger_entries
     WHERE business_id = p_business AND account_id = d.id ORDER BY entry_number DESC LIMIT 1;
    v_at := greatest(v_at, last.created_at);
    d_number := greatest(d_number, last.entry_number + 1);
  END IF;
  IF held ? c.id::text THEN
    SELECT created_at, entry_number INTO last FROM ledger_entries
     WHERE business_id = p_business AND account_id = c.id ORDER BY entry_number DESC LIMIT 1;
    v_at := greatest(v_at, last.created_at);
    c_number := greatest(c_number, last.entry_number + 1);
  END IF;

  LOOP
    tid := time_ordered_uuid();
    ref := 'TXN' || lpad(floor(random() * 1e12)::bigint::text, 12, '0');
    INSERT INTO transactions (id, reference, business_id, type, status, amount, currency,
                              debit_account_id, credit_account_id, external_reference, notes, original_transaction_id, created_at)
    VALUES (tid, ref, p_business, p_type,
            'SUCCESS', v_amount, coalesce(p_currency, c.currency), d.id, c.id, p_external_reference, p_notes, p_original, v_at)
    ON CONFLICT (reference, business_id) DO NOTHING
    RETURNING * INTO t;
    EXIT WHEN t.id IS NOT NULL;
  END LOOP;
  INSERT INTO ledger_entries (business_id, transaction_id, account_id, entry_number, amount, balance_after, created_at)
  VALUES (p_business, t.id, d.id, d_number, -v_amount, d_after, t.created_at), (p_business, t.id, c.id, c_number, v_amount, c_after, t.created_at);
  IF held ? d.id::text OR held ? c.id::text THEN
    IF held ? d.id::text THEN held := held || jsonb_build_object(d.id, d_after::text);
    ELSE UPDATE accounts SET balance = d_after, last_entry_at = v_at, last_entry_number = d_number, updated_at = changed
          WHERE id = d.id AND business_id = p_business; END IF;
    IF held ? c.id::text THEN held := held || jsonb_build_object(c.id, c_after::text);
    ELSE UPDATE accounts SET balance = c_after, last_entry_at = v_at, last_entry_number = c_number, updated_at = changed
          WHERE id = c.id AND business_id = p_business; END IF;
    PERFORM set_config('ledger.held_balances', held::text, true);
  ELSE
    UPDATE accounts SET balance = CASE WHEN id = d.id THEN d_after ELSE c_after END,
                        last_entry_number = CASE WHEN id = d.id THEN d_number ELSE c_number END,
                        last_entry_at = v_at, updated_at = changed
    WHERE id IN (d.id, c.id) AND business_id = p_business;
  END IF;
  RETURN ledger_posting_json(t, d, c, d_after, c_after);
END $$;
