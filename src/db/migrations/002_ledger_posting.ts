/**
 * The ledger's posting primitive in PL/pgSQL, so that a movement of money is
 * one database statement (see 003_ledger_movements for the movements).
 *
 * `ledger_post` takes both accounts already locked by its caller (with
 * `ledger_lock_pair`: lower id first, so concurrent postings over the same
 * accounts serialise and never deadlock), applies the balance rules, inserts
 * the transaction and its two entries (a debit and a credit of the same
 * amount, each with the balance after it) and updates both balances, all in
 * the caller's transaction. The rules are the ones the TypeScript ledger
 * applied before (src/ledger/ledger.ts history):
 *   - only ACTIVE wallets move money (debit side checked first);
 *   - the debited balance may go below 0.00 only for the settlement account
 *     (it mirrors money outside the closed loop) or a wallet with can_overdraft;
 *   - no balance may reach ±1e15 (the documented Balance pattern has 15 integer digits; numeric(20,2) could hold 18).
 * The database guards of 001 stay and still apply: CHECK constraints, the
 * immutable-entries trigger and the deferred balanced-transaction trigger.
 *
 * A refusal is a value, not an exception: {refusal: {code, status, detail,
 * pointer}} (`ledger_refusal`), where `code` is the API's error code and
 * `status` its HTTP status (src/kernel/errors.ts; a test keeps them equal) and
 * `pointer` the request field for VALIDATION_ERROR. Every rule is checked
 * before anything is written, so a refusal has changed nothing; a caller that
 * gets one returns it at once. (Values rather than exceptions: catching an
 * exception costs a subtransaction per movement, measurably slower under load.)
 * Caller bugs (accounts missing, the same, or of another business) raise.
 *
 * A posting is the JSON of the transaction row (money as strings, never JSON
 * numbers), both sides' account numbers and kinds, and its two entries, from
 * which the API's Transaction view is rendered without reading again.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- A refusal of code p_code (an error code of src/kernel/errors.ts) with its HTTP status.
    CREATE FUNCTION ledger_refusal(p_code text, p_detail text, p_pointer text DEFAULT NULL) RETURNS jsonb
    LANGUAGE sql IMMUTABLE AS $$
      SELECT jsonb_build_object('refusal', jsonb_build_object(
        'code', p_code,
        'status', CASE
          WHEN p_code = 'VALIDATION_ERROR' THEN 400
          WHEN p_code IN ('WALLET_NOT_FOUND', 'BUSINESS_NOT_FOUND', 'TRANSACTION_NOT_FOUND') THEN 404
          WHEN p_code = 'TRANSACTION_ALREADY_REVERSED' THEN 409
          ELSE 422 END,
        'detail', p_detail,
        'pointer', p_pointer))
    $$;

    -- "Wallet 900000000019" or "The operational account 100000000011", for messages.
    CREATE FUNCTION ledger_describe(a accounts) RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE WHEN a.kind = 'WALLET' THEN 'Wallet ' || a.account_number
                  ELSE 'The ' || lower(a.kind) || ' account ' || a.account_number END
    $$;

    -- What is wrong with a request amount (a decimal string with at most 15 integer
    -- digits and two decimals, as the API validates it), or NULL when it is fine.
    CREATE FUNCTION ledger_amount_problem(p_value text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE
        WHEN p_value IS NULL OR p_value !~ '^[0-9]{1,15}([.][0-9]{1,2}){0,1}$'
          THEN 'must be a decimal string with at most two decimals'
        WHEN p_value::numeric <= 0 THEN 'must be greater than 0' END
    $$;

    -- p_value as a uuid, or NULL when it is not one (ids from requests).
    CREATE FUNCTION ledger_uuid(p_value text) RETURNS uuid LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE WHEN p_value ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
                  THEN p_value::uuid END
    $$;

    -- Locks the accounts p_a and p_b of business p_business, lower id first, and returns
    -- them; one that does not exist (or belongs to another business) is NULL.
    CREATE FUNCTION ledger_lock_pair(p_business uuid, p_a uuid, p_b uuid, OUT a accounts, OUT b accounts)
    LANGUAGE plpgsql AS $$
    DECLARE
      r accounts;
    BEGIN
      FOR r IN SELECT * FROM accounts WHERE id IN (p_a, p_b) AND business_id = p_business ORDER BY id FOR UPDATE LOOP
        IF r.id = p_a THEN a := r; ELSE b := r; END IF;
      END LOOP;
    END $$;

    -- The posting JSON of transaction t between accounts d (debited) and c (credited).
    CREATE FUNCTION ledger_posting_json(t transactions, d accounts, c accounts, d_after numeric, c_after numeric) RETURNS jsonb
    LANGUAGE sql IMMUTABLE AS $$
      SELECT jsonb_build_object(
        'id', t.id, 'reference', t.reference, 'business_id', t.business_id, 'type', t.type, 'status', t.status,
        'amount', t.amount::text, 'currency', t.currency,
        'debit_account_id', t.debit_account_id, 'credit_account_id', t.credit_account_id,
        'external_reference', t.external_reference, 'notes', t.notes,
        'original_transaction_id', t.original_transaction_id, 'reversal_transaction_id', t.reversal_transaction_id,
        'refunded_amount', t.refunded_amount::text, 'created_at', t.created_at,
        'debit_account_number', d.account_number, 'debit_kind', d.kind,
        'credit_account_number', c.account_number, 'credit_kind', c.kind,
        'entries', jsonb_build_array(
          jsonb_build_object('account_number', d.account_number, 'amount', (-t.amount)::text, 'balance_after', d_after::text),
          jsonb_build_object('account_number', c.account_number, 'amount', t.amount::text, 'balance_after', c_after::text)))
    $$;

    -- Posts one balanced ledger transaction of p_amount (> 0, two decimals) from account
    -- d to account c of business p_business, both locked by the caller, in the caller's
    -- transaction. Returns the posting, or the refusal WALLET_NOT_ACTIVE,
    -- INSUFFICIENT_FUNDS or BALANCE_LIMIT_EXCEEDED before writing anything.
    CREATE FUNCTION ledger_post(
      p_business uuid, p_type text, d accounts, c accounts, p_amount numeric, p_currency text,
      p_external_reference text DEFAULT NULL, p_notes text DEFAULT NULL, p_original uuid DEFAULT NULL
    ) RETURNS jsonb LANGUAGE plpgsql AS $$
    DECLARE
      d_after numeric(20,2);
      c_after numeric(20,2);
      t transactions;
    BEGIN
      IF d.id IS NULL OR c.id IS NULL OR d.id = c.id OR d.business_id <> p_business OR c.business_id <> p_business THEN
        RAISE EXCEPTION 'ledger_post: accounts % and % are not two accounts of business %', d.id, c.id, p_business;
      END IF;
      IF d.kind = 'WALLET' AND d.status <> 'ACTIVE' THEN
        RETURN ledger_refusal('WALLET_NOT_ACTIVE', format('%s is %s; only ACTIVE wallets move money.', ledger_describe(d), d.status));
      END IF;
      IF c.kind = 'WALLET' AND c.status <> 'ACTIVE' THEN
        RETURN ledger_refusal('WALLET_NOT_ACTIVE', format('%s is %s; only ACTIVE wallets move money.', ledger_describe(c), c.status));
      END IF;
      IF d.balance - p_amount < 0 AND NOT (d.kind = 'SETTLEMENT' OR (d.kind = 'WALLET' AND d.can_overdraft)) THEN
        RETURN ledger_refusal('INSUFFICIENT_FUNDS',
          format('%s has %s %s; %s %s was requested.', ledger_describe(d), d.balance, d.currency, p_amount, p_currency));
      END IF;
      IF abs(d.balance - p_amount) >= 1e15 OR abs(c.balance + p_amount) >= 1e15 THEN
        RETURN ledger_refusal('BALANCE_LIMIT_EXCEEDED', 'The movement would take a balance beyond ±999999999999999.99.');
      END IF;
      d_after := d.balance - p_amount;
      c_after := c.balance + p_amount;

      INSERT INTO transactions (id, reference, business_id, type, status, amount, currency,
                                debit_account_id, credit_account_id, external_reference, notes, original_transaction_id)
      VALUES (gen_random_uuid(), 'TXN' || lpad(nextval('transaction_reference_seq')::text, 12, '0'), p_business, p_type,
              'SUCCESS', p_amount, p_currency, d.id, c.id, p_external_reference, p_notes, p_original)
      RETURNING * INTO t;
      INSERT INTO ledger_entries (transaction_id, account_id, amount, balance_after)
      VALUES (t.id, d.id, -p_amount, d_after), (t.id, c.id, p_amount, c_after);
      UPDATE accounts SET balance = CASE WHEN id = d.id THEN d_after ELSE c_after END, updated_at = now()
      WHERE id IN (d.id, c.id);
      RETURN ledger_posting_json(t, d, c, d_after, c_after);
    END $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP FUNCTION IF EXISTS ledger_post(uuid, text, accounts, accounts, numeric, text, text, text, uuid);
    DROP FUNCTION IF EXISTS ledger_posting_json(transactions, accounts, accounts, numeric, numeric);
    DROP FUNCTION IF EXISTS ledger_lock_pair(uuid, uuid, uuid);
    DROP FUNCTION IF EXISTS ledger_uuid(text);
    DROP FUNCTION IF EXISTS ledger_amount_problem(text);
    DROP FUNCTION IF EXISTS ledger_describe(accounts);
    DROP FUNCTION IF EXISTS ledger_refusal(text, text, text);
  `);
}
