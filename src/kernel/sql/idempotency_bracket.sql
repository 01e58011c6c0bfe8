-- The bracket of an operation under an Idempotency-Key, inside the operation's own
-- statement and transaction: idempotency_enter before its effect, idempotency_leave after
-- it, so that the effect and its stored outcome commit together and the key's locks are
-- released only once both are visible. (Semantics of the key: src/kernel/idempotency/idempotency.ts.)
-- Any capability wraps its own entry point in it (the ledger's ledger_keyed_open and
-- ledger_keyed_close, which ledger_move_keyed and payout_create_keyed use); it names none.
--
-- idempotency_enter takes key (p_scope, p_key) of business p_business for the request with
-- fingerprint p_hash. It returns {fresh: true} for a new key, the common case, decided
-- here: both locks taken, no row (the unique (scope, key) still refuses a second row, so two
-- effects can never both commit); {fresh: false} for a key the request may take over
-- (idempotency_begin decides it: advisory locks are re-entrant within a session, so it
-- takes again what was taken here); or {held: <the key as another request holds it, or a
-- completed one's kept response>}, and the operation then does nothing else.
CREATE OR REPLACE FUNCTION idempotency_enter(p_business uuid, p_scope text, p_key text, p_hash text, p_stale_seconds int) RETURNS jsonb
LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  held jsonb;
BEGIN
  -- Two statements: the row is read under a snapshot taken once the locks are held, so a
  -- request that held them and committed is seen (one expression would read under the
  -- snapshot taken before the locks, and insert a second row).
  IF idempotency_lock(p_scope, p_key, p_hash) IS NULL THEN
    PERFORM 1 FROM idempotency_keys WHERE scope = p_scope AND key = p_key AND business_id = p_business;
    IF NOT FOUND THEN
      RETURN jsonb_build_object('fresh', true);
    END IF;
  END IF;
  held := idempotency_begin(p_scope, p_key, p_hash, p_stale_seconds);
  IF held IS NOT NULL THEN
    RETURN jsonb_build_object('held', held);
  END IF;
  RETURN jsonb_build_object('fresh', false);
END $$;

-- idempotency_leave keeps p_response as the outcome of the key idempotency_enter took
-- (p_fresh: what it answered), for p_ttl_seconds: a new row for a fresh key, else the row
-- replaced (idempotency_finish). The row's id and times are drawn before its INSERT, which
-- then calls no function and leaves no column to a default that calls one (docs/scale-out.md,
-- "Statements a worker plans once").
CREATE OR REPLACE FUNCTION idempotency_leave(
  p_business uuid, p_scope text, p_key text, p_hash text, p_ttl_seconds int, p_fresh boolean, p_response jsonb
) RETURNS void LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  key_id uuid;
  created timestamptz;
  expires timestamptz;
BEGIN
  IF p_fresh THEN
    SELECT gen_random_uuid(), now(), now() + make_interval(secs => p_ttl_seconds) INTO key_id, created, expires;
    INSERT INTO idempotency_keys (id, scope, key, business_id, request_hash, state, response_body, created_at, expires_at)
    VALUES (key_id, p_scope, p_key, p_business, p_hash, 'COMPLETED', p_response, created, expires);
  ELSE
    PERFORM idempotency_finish(p_scope, p_key, p_hash, p_business, p_response, p_ttl_seconds);
  END IF;
END $$;
