-- Announces a request in flight under Idempotency-Key (p_scope, p_key) with
-- fingerprint p_hash, for the rest of the transaction: two transaction-scoped
-- advisory locks taken without waiting, first on (scope, key, fingerprint), then
-- on (scope, key). Returns NULL when both are taken; 'REQUEST' when the same
-- request (same fingerprint) holds the first; 'KEY' when another request with
-- this key holds the second. Duplicates see these locks, not a row, so a key
-- costs no write until its outcome is stored with the effect, in one commit.
--
-- The lock keys are 64-bit hashes: a collision between two keys in flight at the
-- same moment can only make one of them be refused or wait its turn, never run
-- twice (the key's row, stored with the effect, is unique). CASE takes the second
-- lock only when the first was taken. A SQL expression with no table: the planner
-- inlines it into the calling statement.
CREATE OR REPLACE FUNCTION idempotency_lock(p_scope text, p_key text, p_hash text) RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT CASE
    WHEN NOT pg_try_advisory_xact_lock(hashtextextended(p_scope || '/' || p_key || '/' || p_hash, 0)) THEN 'REQUEST'
    WHEN NOT pg_try_advisory_xact_lock(hashtextextended(p_scope || '/' || p_key, 0)) THEN 'KEY' END
$$;
