-- Takes Idempotency-Key (p_scope, p_key) for the request with fingerprint p_hash,
-- for the rest of the transaction (idempotency_lock), and reads the key's row.
-- Returns NULL when the request may run: the key is free, its row expired, or its
-- row was left IN_PROGRESS by the same request more than p_stale_seconds ago (rows
-- a process that died under an earlier claim-first protocol may have left; the row
-- is then locked, so that its owner, were it alive, cannot complete it).
-- Otherwise returns the key as another request holds it: {request_hash, state,
-- response}; request_hash is p_hash for the same request in flight, NULL for
-- another one in flight. The response is returned as it was kept: a completed
-- movement is kept as {transaction_id}, which the ledger turns back into its posting
-- for a replay (ledger_move_keyed), so that this function names no capability.
-- The row is read under its business (the scope's: idempotency_owner;
-- the nil UUID for the platform's keys): distributed by business, on that node only.
--
-- PostgreSQL releases a committed transaction's locks one by one, so a duplicate
-- can find the request lock free and the key lock not yet released. The row then
-- decides (each statement sees what committed before it started): a completed
-- response is answered as for any completed key; with none, another request with
-- this key is in flight.
CREATE OR REPLACE FUNCTION idempotency_begin(p_scope text, p_key text, p_hash text, p_stale_seconds int) RETURNS jsonb
LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  taken text := idempotency_lock(p_scope, p_key, p_hash);
  held idempotency_keys;
  owner uuid := idempotency_owner(p_scope);
BEGIN
  IF taken = 'REQUEST' THEN
    RETURN jsonb_build_object('request_hash', p_hash, 'state', 'IN_PROGRESS');
  END IF;
  IF taken = 'KEY' THEN
    SELECT * INTO held FROM idempotency_keys WHERE scope = p_scope AND key = p_key AND business_id = owner;
    IF held.id IS NULL OR held.state <> 'COMPLETED' OR held.expires_at < now() THEN
      RETURN jsonb_build_object('request_hash', NULL, 'state', 'IN_PROGRESS');
    END IF;
  ELSE
    SELECT * INTO held FROM idempotency_keys WHERE scope = p_scope AND key = p_key AND business_id = owner FOR NO KEY UPDATE;
    IF held.id IS NULL OR held.expires_at < now()
       OR (held.state = 'IN_PROGRESS' AND held.request_hash = p_hash
           AND held.created_at < now() - make_interval(secs => p_stale_seconds)) THEN
      RETURN NULL;
    END IF;
  END IF;
  RETURN jsonb_build_object('request_hash', held.request_hash, 'state', held.state, 'response', held.response_body);
END $$;
