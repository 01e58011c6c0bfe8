-- Stores p_response as the COMPLETED response of the key that idempotency_begin
-- took in this transaction, kept p_ttl_seconds, replacing an expired or stale row.
-- p_business is the business whose request it answers; the platform's own requests
-- (NULL) are kept under the nil UUID, so that every key has a business to be
-- distributed by (src/db/migrations/025_business_keys.ts). A scope has one business,
-- so the key is unique by (scope, key) as before. The response's `status` is the
-- HTTP status of a response the service rendered before reaching the ledger
-- (idempotency_store); a ledger
-- outcome ({transaction_id} or {refusal, context}) has none: the service derives
-- it from the refusal's code when it replays it.
CREATE OR REPLACE FUNCTION idempotency_finish(
  p_scope text, p_key text, p_hash text, p_business uuid, p_response jsonb, p_ttl_seconds int
) RETURNS void LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
BEGIN
  -- The update takes the new row's times (EXCLUDED), not now(): on Citus an upsert's SET may
  -- call no function that is not immutable; and PL/pgSQL, not SQL, since a statement of an
  -- SQL function on a distributed table with the function's arguments cannot be planned there.
  INSERT INTO idempotency_keys (id, scope, key, business_id, request_hash, state, response_status, response_body, created_at, expires_at)
  VALUES (gen_random_uuid(), p_scope, p_key, coalesce(p_business, '00000000-0000-0000-0000-000000000000'), p_hash, 'COMPLETED', (p_response->>'status')::int, p_response,
          now(), now() + make_interval(secs => p_ttl_seconds))
  ON CONFLICT (scope, key, business_id) DO UPDATE
    SET id = EXCLUDED.id, request_hash = EXCLUDED.request_hash, state = 'COMPLETED',
        response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body,
        created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at;
END $$;
