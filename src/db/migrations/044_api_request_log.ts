/**
 * The API request log (src/audit/requestLog.ts): one row per API request that named a
 * business, written off the request's critical path, with its bodies redacted and capped.
 * A tenant table (business_id leads every key, so it distributes by business on Citus);
 * listed newest first per business, found by request id or idempotency key, purged by age
 * and by a per-business row bound (created_at).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE api_requests (
      id uuid NOT NULL,
      business_id uuid NOT NULL,
      created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      request_id text NOT NULL,
      operation_id text NOT NULL,
      method text NOT NULL,
      path text NOT NULL,
      status smallint NOT NULL,
      problem_code text,
      duration_ms integer NOT NULL,
      idempotency_key text,
      actor_type text NOT NULL,
      actor_id text NOT NULL,
      request_body jsonb,
      response_body jsonb,
      CONSTRAINT api_requests_pkey PRIMARY KEY (business_id, id),
      CONSTRAINT api_requests_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
      CONSTRAINT api_requests_actor_type_check CHECK (actor_type IN ('api_key', 'user'))
    );
    CREATE INDEX api_requests_business_id_created_at_id_index ON api_requests (business_id, created_at, id);
    CREATE INDEX api_requests_business_id_request_id_index ON api_requests (business_id, request_id);
    CREATE INDEX api_requests_business_id_idempotency_key_index ON api_requests (business_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
    CREATE INDEX api_requests_created_at_index ON api_requests (created_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE api_requests');
}
