-- Distributes the service's schema by business on Citus (docs/scale-out.md).
--
-- Run once, with psql, on the coordinator of a Citus cluster whose workers are added,
-- against a database migrated by this repository (`npm start` or `npm run migrate`: the
-- migrations, then the SQL definitions of src/<capability>/sql/), before the service
-- takes traffic:
--
--   psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -f scripts/citus/distribute.sql
--
-- Not run by any test here: Citus is not installable on these machines. What the script
-- relies on is checked on plain PostgreSQL by test/platform/distribution.test.ts (keys,
-- foreign keys, functions) and test/platform/singleBusiness.test.ts (one business per
-- transaction). The table classes are those of test/support/distribution.ts.
\set ON_ERROR_STOP on

CREATE EXTENSION IF NOT EXISTS citus;

-- Statement by statement (Citus distributes a table with its rows in a transaction of
-- its own): should a statement fail, start again from a copy of the database as it was.

-- Triggers of distributed tables: the ledger's balance check and immutability, the
-- outbox's pending row (same shard), the account number directory (another table).
SET citus.enable_unsafe_triggers = on;
-- Every tenant table in one colocation group: a business's rows of every table on one node.
SET citus.shard_count = 64;

-- Reference tables: a copy on every node, so that each node checks the foreign keys
-- to businesses and reads a client locally.
SELECT create_reference_table('businesses');
SELECT create_reference_table('api_clients');
SELECT create_reference_table('settings');
SELECT create_reference_table('sql_definitions');

-- Coordinator tables stay local: rate_limits, knex_migrations, knex_migrations_lock and
-- the job queue's schema (pgboss). Nothing to run for them.

-- Tenant tables, by business_id, colocated with accounts. A table's foreign keys point
-- at tables distributed before it. card_issuances and cards point at each other: the
-- issuance's link to its card is taken off while both are distributed, then put back.
SELECT create_distributed_table('labels', 'business_id', colocate_with => 'none');
SELECT create_distributed_table('accounts', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('transactions', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('ledger_entries', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('idempotency_keys', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('sandbox_clocks', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('sandbox_sms_messages', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('sandbox_provider_outages', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('otp_operations', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('customers', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('onboarding_sessions', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('provider_requests', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('provider_callback_events', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('mobile_number_change_sessions', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('webhook_endpoints', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('outbox_events', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('outbox_pending', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('webhook_deliveries', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('webhook_delivery_attempts', 'business_id', colocate_with => 'labels');
ALTER TABLE card_issuances DROP CONSTRAINT card_issuances_card_id_foreign;
SELECT create_distributed_table('card_issuances', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('cards', 'business_id', colocate_with => 'labels');
ALTER TABLE card_issuances ADD CONSTRAINT card_issuances_card_id_foreign
  FOREIGN KEY (business_id, card_id) REFERENCES cards (business_id, id);
SELECT create_distributed_table('card_otp_sessions', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('tokenization_activation_requests', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('payouts', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('payout_whitelist_entries', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('bulk_payouts', 'business_id', colocate_with => 'labels');
SELECT create_distributed_table('bulk_payout_items', 'business_id', colocate_with => 'labels');

-- Directories: each by its own value, in a colocation group of its own (a lookup by the
-- value is one shard; its business's rows are on another).
SELECT create_distributed_table('account_numbers', 'account_number', colocate_with => 'none');
SELECT create_distributed_table('card_tokens', 'token', colocate_with => 'none');
SELECT create_distributed_table('card_pans', 'pan_fingerprint', colocate_with => 'none');

-- Every table of the schema is placed: a table added later and left out fails here.
DO $check$
DECLARE
  left_out text[];
BEGIN
  SELECT array_agg(c.relname ORDER BY c.relname) INTO left_out
    FROM pg_class c
   WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'
     AND c.relname NOT IN ('rate_limits', 'knex_migrations', 'knex_migrations_lock')
     AND NOT EXISTS (SELECT 1 FROM pg_dist_partition p WHERE p.logicalrelid = c.oid);
  IF left_out IS NOT NULL THEN
    RAISE EXCEPTION 'tables neither distributed nor reference: %', left_out;
  END IF;
END $check$;

-- The ledger's functions that take the business first (p_business uuid, checked by
-- test/platform/distribution.test.ts): delegated to the node of that business's shard,
-- so a movement is one round trip to one worker. Every other function of the schema is
-- propagated to every node, for the delegated ones call them there.
SELECT create_distributed_function(p.oid::regprocedure, 'p_business', colocate_with => 'labels')
  FROM pg_proc p
 WHERE p.pronamespace = 'public'::regnamespace AND p.proargnames[1] = 'p_business' AND p.proargtypes[0] = 'uuid'::regtype;
SELECT create_distributed_function(p.oid::regprocedure)
  FROM pg_proc p
 WHERE p.pronamespace = 'public'::regnamespace AND NOT (coalesce(p.proargnames[1], '') = 'p_business' AND p.proargtypes[0] = 'uuid'::regtype)
   AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e');

-- Afterwards: `SELECT * FROM citus_tables;` lists each table with its class, and
-- `SELECT * FROM pg_dist_object;` the distributed functions.
