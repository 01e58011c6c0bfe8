-- A posting as the ledger returns it: the transaction (money as strings, never JSON
-- numbers), both sides' account numbers and kinds, and its two entries (the debit first,
-- amounts signed, each with the balance after it), from which the service renders the
-- API's Transaction view without reading again.
--
-- ledger_posting_object builds it from the values themselves, one argument per field of
-- the transaction row, then the debited account's number and kind, the credited one's,
-- and the two balances after: a batch posted set-wise (ledger_move_set) has them in
-- arrays and builds all its postings in one statement that reads no table. It is json, not
-- jsonb: a batch's postings are only sent to the service, and json is text written once,
-- where jsonb is a tree built, then written out (about half the database's time of a
-- posting). Declared STABLE, as json_build_object is, so the planner inlines it into that
-- statement.
CREATE OR REPLACE FUNCTION ledger_posting_object(
  p_id uuid, p_reference text, p_business uuid, p_type text, p_status text, p_amount numeric, p_currency text,
  p_debit_account uuid, p_credit_account uuid, p_external_reference text, p_notes text,
  p_original uuid, p_reversal uuid, p_refunded_amount numeric, p_created_at timestamptz,
  p_debit_number text, p_debit_kind text, p_credit_number text, p_credit_kind text, p_debit_after numeric, p_credit_after numeric
) RETURNS json LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'id', p_id, 'reference', p_reference, 'business_id', p_business, 'type', p_type, 'status', p_status,
    'amount', p_amount::text, 'currency', p_currency,
    'debit_account_id', p_debit_account, 'credit_account_id', p_credit_account,
    'external_reference', p_external_reference, 'notes', p_notes,
    'original_transaction_id', p_original, 'reversal_transaction_id', p_reversal,
    'refunded_amount', p_refunded_amount::text, 'created_at', p_created_at,
    'debit_account_number', p_debit_number, 'debit_kind', p_debit_kind,
    'credit_account_number', p_credit_number, 'credit_kind', p_credit_kind,
    'entries', json_build_array(
      json_build_object('account_number', p_debit_number, 'amount', (-p_amount)::text, 'balance_after', p_debit_after::text),
      json_build_object('account_number', p_credit_number, 'amount', p_amount::text, 'balance_after', p_credit_after::text)))
$$;

-- ledger_posting_json builds it from the transaction row t, the debited account d and the
-- credited one c (ledger_post, ledger_posting_of hold them as row variables), as jsonb: what
-- the ledger's functions return and read.
CREATE OR REPLACE FUNCTION ledger_posting_json(t transactions, d accounts, c accounts, d_after numeric, c_after numeric) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT ledger_posting_object(t.id, t.reference, t.business_id, t.type, t.status, t.amount, t.currency,
                               t.debit_account_id, t.credit_account_id, t.external_reference, t.notes,
                               t.original_transaction_id, t.reversal_transaction_id, t.refunded_amount, t.created_at,
                               d.account_number, d.kind, c.account_number, c.kind, d_after, c_after)::jsonb
$$;
