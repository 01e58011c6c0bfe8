-- A posting as the ledger returns it: the transaction row t (money as strings,
-- never JSON numbers), both sides' account numbers and kinds, and its two entries
-- (the debit first, amounts signed, each with the balance after it), from which
-- the service renders the API's Transaction view without reading again.
-- d is the debited account, c the credited one.
CREATE OR REPLACE FUNCTION ledger_posting_json(t transactions, d accounts, c accounts, d_after numeric, c_after numeric) RETURNS jsonb
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
