-- Stores p_response ({status, body, contentType}, as the service sent it) for a
-- request that failed before reaching the ledger, under the same rules as a
-- movement's outcome (idempotency_begin, idempotency_finish): NULL when stored,
-- otherwise the key as another request holds it. A scope that is a business's id
-- is that business's key.
CREATE OR REPLACE FUNCTION idempotency_store(
  p_scope text, p_key text, p_hash text, p_ttl_seconds int, p_stale_seconds int, p_response jsonb
) RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  held jsonb := idempotency_begin(p_scope, p_key, p_hash, p_stale_seconds);
BEGIN
  IF held IS NULL THEN
    PERFORM idempotency_finish(p_scope, p_key, p_hash, idempotency_owner(p_scope),
                               p_response, p_ttl_seconds);
  END IF;
  RETURN held;
END $$;
