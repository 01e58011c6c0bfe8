-- ledger_move under an Idempotency-Key, in one statement and one transaction: the
-- key is taken (idempotency_lock), the money moves (ledger_move) and the outcome is
-- stored with the key, so that the effect and its stored outcome commit together
-- and the key's locks are released only once both are visible. (Semantics of the
-- key: src/kernel/idempotency.ts.)
--
-- Returns {held: <the key as another request holds it>} and does nothing else (a
-- completed movement's kept {transaction_id} with its posting rebuilt beside it); or
-- moves and returns {posting}, kept with the key as {transaction_id} (the posting
-- is rebuilt for a replay: ledger_posting_of); or returns and keeps a refusal as
-- {refusal, context: p_context} (what the service needs to render it again: the
-- first request's id and path).
--
-- A new key, the common case, is handled in this body: both locks taken, no row,
-- the row inserted. The unique (scope, key) key still refuses a second row, so two
-- effects can never both commit. Every other case (a lock held by another session,
-- a row already there) goes through idempotency_begin and idempotency_finish;
-- advisory locks are re-entrant within a session, so idempotency_begin takes again
-- what was taken here and decides as it always does. The business comes first, as in
-- every function of the ledger the service calls: distributed, it is the argument that
-- sends the call to the business's node (scripts/citus/distribute.sql).
CREATE OR REPLACE FUNCTION ledger_move_keyed(
  p_business uuid, p_scope text, p_key text, p_hash text, p_ttl_seconds int, p_stale_seconds int, p_context jsonb,
  p_type text, p_request jsonb
) RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  fresh boolean := false;
  held jsonb;
  result jsonb;
  response jsonb;
BEGIN
  IF idempotency_lock(p_scope, p_key, p_hash) IS NULL THEN
    fresh := NOT EXISTS (SELECT 1 FROM idempotency_keys WHERE scope = p_scope AND key = p_key AND business_id = p_business);
  END IF;
  IF NOT fresh THEN
    held := idempotency_begin(p_scope, p_key, p_hash, p_stale_seconds);
    IF held->'response'->>'transaction_id' IS NOT NULL THEN
      held := jsonb_set(held, '{response,posting}', ledger_posting_of(p_business, (held->'response'->>'transaction_id')::uuid));
    END IF;
    IF held IS NOT NULL THEN
      RETURN jsonb_build_object('held', held);
    END IF;
  END IF;

  result := ledger_move(p_business, p_type, p_request);
  IF result->'refusal' IS NOT NULL THEN
    response := jsonb_build_object('refusal', result->'refusal', 'context', p_context);
  ELSE
    response := jsonb_build_object('transaction_id', result->'id');
  END IF;
  IF fresh THEN
    INSERT INTO idempotency_keys (id, scope, key, business_id, request_hash, state, response_body, expires_at)
    VALUES (gen_random_uuid(), p_scope, p_key, p_business, p_hash, 'COMPLETED', response, now() + make_interval(secs => p_ttl_seconds));
  ELSE
    PERFORM idempotency_finish(p_scope, p_key, p_hash, p_business, response, p_ttl_seconds);
  END IF;
  IF result->'refusal' IS NOT NULL THEN
    RETURN response;
  END IF;
  RETURN jsonb_build_object('posting', result);
END $$;
