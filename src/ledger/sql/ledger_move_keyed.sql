-- A posting under an Idempotency-Key, in one statement and one transaction: the ledger's
-- side of the kernel's bracket (idempotency_enter, idempotency_leave), which any entry
-- point that posts wraps around itself: ledger_move_keyed here, payout_create_keyed in
-- payouts. (Semantics of the key: src/kernel/idempotency/idempotency.ts.)
--
-- ledger_keyed_open enters the key: {fresh} to go on, or {held} (another request holds
-- the key, or it completed: a completed posting is kept as {transaction_id}, and its
-- posting is rebuilt beside it, ledger_posting_of).
CREATE OR REPLACE FUNCTION ledger_keyed_open(p_business uuid, p_scope text, p_key text, p_hash text, p_stale_seconds int) RETURNS jsonb
LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  entry jsonb := idempotency_enter(p_business, p_scope, p_key, p_hash, p_stale_seconds);
BEGIN
  IF entry->'held'->'response'->>'transaction_id' IS NOT NULL THEN
    entry := jsonb_set(entry, '{held,response,posting}', ledger_posting_of(p_business, (entry->'held'->'response'->>'transaction_id')::uuid));
  END IF;
  RETURN entry;
END $$;

-- ledger_keyed_close keeps the outcome p_result of the operation with the key (p_fresh:
-- what ledger_keyed_open answered) and returns the operation's answer: a posting is kept
-- as {transaction_id} and answered as {posting}; a refusal is kept and answered as
-- {refusal, context: p_context} (what the service needs to render it again: the first
-- request's id and path).
CREATE OR REPLACE FUNCTION ledger_keyed_close(
  p_business uuid, p_scope text, p_key text, p_hash text, p_ttl_seconds int, p_fresh boolean, p_context jsonb, p_result jsonb
) RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  response jsonb := CASE WHEN p_result->'refusal' IS NOT NULL THEN jsonb_build_object('refusal', p_result->'refusal', 'context', p_context)
                         ELSE jsonb_build_object('transaction_id', p_result->'id') END;
BEGIN
  PERFORM idempotency_leave(p_business, p_scope, p_key, p_hash, p_ttl_seconds, p_fresh, response);
  IF p_result->'refusal' IS NOT NULL THEN
    RETURN response;
  END IF;
  RETURN jsonb_build_object('posting', p_result);
END $$;

-- ledger_move under an Idempotency-Key: {held}, {posting} or {refusal, context} (see
-- above). The business comes first, as in every function of the ledger the service calls:
-- distributed, it is the argument that sends the call to the business's node.
CREATE OR REPLACE FUNCTION ledger_move_keyed(
  p_business uuid, p_scope text, p_key text, p_hash text, p_ttl_seconds int, p_stale_seconds int, p_context jsonb,
  p_type text, p_request jsonb
) RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  entry jsonb := ledger_keyed_open(p_business, p_scope, p_key, p_hash, p_stale_seconds);
BEGIN
  IF entry ? 'held' THEN
    RETURN entry;
  END IF;
  RETURN ledger_keyed_close(p_business, p_scope, p_key, p_hash, p_ttl_seconds, (entry->>'fresh')::boolean, p_context,
                            ledger_move(p_business, p_type, p_request));
END $$;
