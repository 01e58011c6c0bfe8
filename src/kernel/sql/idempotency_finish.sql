-- Stores p_response as the COMPLETED response of the key that idempotency_begin
-- took in this transaction, kept p_ttl_seconds, replacing an expired or stale row.
-- p_business is the business whose request it answers; the platform's own requests
-- (NULL) are kept under the nil UUID, so that every key has a business to be
-- distributed by (src/db/migrations/025_business_keys.ts). A scope has one business,
-- so the key is unique by (scope, key) as before. The response's `status` is the
-- HTTP status of a response the service rendered before reaching the ledger
-- (idempotency_store); a ledger
-- outcome ({transaction_id} or {refusal, context}) has none: the service derives
-- it from the refusal's code when it replays it. The row's id, business and times are drawn
-- before the upsert, which then names its business as a value and calls no function
-- (docs/scale-out.md, "Statements a worker plans once").
CREATE OR REPLACE FUNCTION idempotency_finish(
  p_scope text, p_key text, p_hash text, p_business uuid, p_response jsonb, p_ttl_seconds int
) RETURNS void LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  key_id uuid := gen_random_uuid();
  owner uuid := coalesce(p_business, '00000000-0000-0000-0000-000000000000');
  created timestamptz := now();
  expires timestamptz := now() + make_interval(secs => p_ttl_seconds);
BEGIN
  -- The update takes the new row's times (EXCLUDED), not now(): on Citus an upsert's SET may
  -- call no function that is not immutable; and PL/pgSQL, not SQL, since a statement of an
  -- SQL function on a distributed table with the function's arguments cannot be planned there.
  INSERT INTO idempotency_keys (id, scope, key, business_id, request_hash, state, response_status, response_body, created_at, expires_at)
  VALUES (key_id, p_scope, p_key, owner, p_hash, 'COMPLETED', (p_response->>'status')::int, p_response, created, expires)
  ON CONFLICT (scope, key, business_id) DO UPDATE
    SET id = EXCLUDED.id, request_hash = EXCLUDED.request_hash, state = 'COMPLETED',
        response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body,
        created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at;
END $$;

-- The set form, for a batch whose keys are all new: idempotency_lock took each of them in
-- this transaction and none has a row (ledger_move_set checks both). Stores each key's
-- response as COMPLETED under business p_business, kept its TTL (seconds); the arrays are
-- parallel, one element per movement, and a NULL scope is a movement without a key. A
-- plain INSERT: a key's row that exists after all is a broken invariant, and raises. The
-- rows' ids and times are drawn first, one per movement, in statements of their own.
CREATE OR REPLACE FUNCTION idempotency_finish_set(
  p_business uuid, p_scopes text[], p_keys text[], p_hashes text[], p_ttls int[], p_responses jsonb[]
) RETURNS void LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  ids uuid[] := ARRAY(SELECT gen_random_uuid() FROM generate_series(1, cardinality(p_scopes)));
  created timestamptz := now();
  expires timestamptz[] := ARRAY(SELECT created + make_interval(secs => t.ttl) FROM unnest(p_ttls) WITH ORDINALITY t(ttl, k) ORDER BY t.k);
BEGIN
  INSERT INTO idempotency_keys (id, scope, key, business_id, request_hash, state, response_body, created_at, expires_at)
  SELECT u.id, u.scope, u.key, p_business, u.hash, 'COMPLETED', u.response, created, u.expires
    FROM unnest(ids, p_scopes, p_keys, p_hashes, p_responses, expires) u(id, scope, key, hash, response, expires)
   WHERE u.scope IS NOT NULL;
END $$;
