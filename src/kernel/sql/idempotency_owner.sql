-- The business an Idempotency-Key's row belongs to, from its scope: a scope that is a
-- uuid is the calling business's id (src/http/openapi.ts scopes a key to the business,
-- or else to the platform client, whose ids are never uuids: src/businesses/clients.ts);
-- any other scope is a platform client's, whose keys carry the nil UUID (migration 025).
-- Derived from the scope alone, without reading businesses, a table of a higher floor;
-- inlined by the planner (a SQL expression with no table).
CREATE OR REPLACE FUNCTION idempotency_owner(p_scope text) RETURNS uuid LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(request_uuid(p_scope), '00000000-0000-0000-0000-000000000000'::uuid)
$$;
