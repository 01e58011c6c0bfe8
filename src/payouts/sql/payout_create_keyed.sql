-- createPayout (E4) under its Idempotency-Key, in one statement and one transaction:
-- payout_create inside the ledger's side of the kernel's key bracket (ledger_keyed_open,
-- ledger_keyed_close, src/ledger/sql/ledger_move_keyed.sql). Returns {held} (another
-- request holds the key, or it completed: the posting rebuilt with its payout,
-- payout_posting_of), {posting} or {refusal, context}. The business comes first: on a
-- distributed database the call runs on the business's node.
CREATE OR REPLACE FUNCTION payout_create_keyed(
  p_business uuid, p_scope text, p_key text, p_hash text, p_ttl_seconds int, p_stale_seconds int, p_context jsonb, r jsonb
) RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  entry jsonb := ledger_keyed_open(p_business, p_scope, p_key, p_hash, p_stale_seconds);
BEGIN
  IF entry->'held'->'response'->'posting' IS NOT NULL THEN
    RETURN jsonb_set(entry, '{held,response,posting}', entry->'held'->'response'->'posting'
                     || payout_posting_of(p_business, (entry->'held'->'response'->>'transaction_id')::uuid));
  END IF;
  IF entry ? 'held' THEN
    RETURN entry;
  END IF;
  RETURN ledger_keyed_close(p_business, p_scope, p_key, p_hash, p_ttl_seconds, (entry->>'fresh')::boolean, p_context,
                            payout_create(p_business, r));
END $$;
