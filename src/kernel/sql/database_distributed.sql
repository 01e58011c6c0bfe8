-- Whether this database runs Citus (the extension is installed, on the coordinator and on
-- every worker alike). The background lane then keeps custom plans (src/server.ts,
-- src/kernel/scheduling/background.ts), and the payouts' batches are stepped one by one,
-- not set-wise (payout_create_batch, payout_move_batch): set-wise, payout moves committed
-- while their business's shards were being split off were not kept
-- (test/citus/liveMove.citus.ts), where the same moves one by one were (openapi/DESIGN.md,
-- "Set-based batch posting").
CREATE OR REPLACE FUNCTION database_distributed() RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')
$$;
