-- A refusal: the ledger's answer to a request that breaks one of its rules.
--
-- A refusal is a value, not an exception: catching an exception costs a
-- subtransaction per movement, which is measurably slower under load, and every
-- rule is checked before the first write, so a caller that returns a refusal at
-- once has changed nothing.
--
-- It carries the API's error code only (src/kernel/errors.ts maps each code to its HTTP
-- status, the one place that does), the detail shown to the client and, for
-- VALIDATION_ERROR, the JSON Pointer of the request field at fault.
CREATE OR REPLACE FUNCTION ledger_refusal(p_code text, p_detail text, p_pointer text DEFAULT NULL) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('refusal', jsonb_build_object('code', p_code, 'detail', p_detail, 'pointer', p_pointer))
$$;
