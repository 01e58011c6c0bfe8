-- An id sent in a request as a uuid, or NULL when it is not one, so that a
-- malformed id is "not found" like an unknown one rather than a cast error.
-- Inlined by the planner into the calling statement (a SQL expression with no table).
CREATE OR REPLACE FUNCTION request_uuid(p_value text) RETURNS uuid LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_value ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
              THEN p_value::uuid END
$$;
