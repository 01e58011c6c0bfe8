/**
 * The audit log (src/audit/): one row per state-changing request and per permission refusal,
 * written at the HTTP edge before the response is sent. A tenant table (business_id, so it
 * distributes by business on Citus); append-only: a trigger refuses UPDATE, TRUNCATE and any
 * DELETE but the retention purge's (src/audit/sql/audit_events_append_only.sql), and
 * PUBLIC holds neither UPDATE nor DELETE. Listed newest first per business, optionally of
 * one actor or operation (btree), or naming one target (GIN on target_ids); purged by age
 * (created_at).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE audit_events (
      id uuid NOT NULL,
      business_id uuid NOT NULL,
      created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      actor_type text NOT NULL,
      actor_id text NOT NULL,
      operation_id text NOT NULL,
      method text NOT NULL,
      target_ids text[] NOT NULL DEFAULT '{}',
      status smallint NOT NULL,
      problem_code text,
      replayed boolean NOT NULL DEFAULT false,
      request_id text NOT NULL,
      ip_address text,
      user_agent text,
      CONSTRAINT audit_events_pkey PRIMARY KEY (business_id, id),
      CONSTRAINT audit_events_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
      CONSTRAINT audit_events_actor_type_check CHECK (actor_type IN ('api_key', 'user'))
    );
    CREATE INDEX audit_events_business_id_created_at_id_index ON audit_events (business_id, created_at, id);
    CREATE INDEX audit_events_business_id_actor_id_created_at_id_index ON audit_events (business_id, actor_id, created_at, id);
    CREATE INDEX audit_events_business_id_operation_id_created_at_id_index ON audit_events (business_id, operation_id, created_at, id);
    CREATE INDEX audit_events_target_ids_index ON audit_events USING gin (target_ids);
    CREATE INDEX audit_events_created_at_index ON audit_events (created_at);
    REVOKE UPDATE, DELETE, TRUNCATE ON audit_events FROM PUBLIC;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE audit_events');
}
