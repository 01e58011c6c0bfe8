/**
 * Webhooks: endpoints (secrets sealed at rest, src/webhooks/secrets.ts), the transactional
 * outbox (written in the same database transaction as the change it reports), and one
 * delivery per (event, endpoint) or per redelivery request, with one row per HTTP attempt.
 * The job queue (pg-boss) keeps its own tables in the `pgboss` schema.
 */
export const WEBHOOKS = `
  -- The clear \`secret\` is read until the service seals it at start (resealEndpointSecrets):
  -- a migration cannot reach the data keys, which come from the environment. Every row
  -- holds its secret one way or the other.
  CREATE TABLE webhook_endpoints (
    id uuid NOT NULL,
    business_id uuid NOT NULL,
    url text NOT NULL,
    secret text,
    events jsonb NOT NULL,
    status text NOT NULL,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    disabled_reason text,
    disabled_at timestamp(3) with time zone,
    secret_sealed text,
    secret_key_version integer,
    CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (id),
    CONSTRAINT webhook_endpoints_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
    CONSTRAINT webhook_endpoints_sealed_with_version CHECK ((secret_sealed IS NULL) = (secret_key_version IS NULL)),
    CONSTRAINT webhook_endpoints_secret_kept CHECK (secret IS NOT NULL OR secret_sealed IS NOT NULL)
  );
  CREATE INDEX webhook_endpoints_business_id_created_at_id_index ON webhook_endpoints (business_id, created_at, id);

  -- Insert-only: an event is pending while it has a row in outbox_pending.
  CREATE TABLE outbox_events (
    id uuid NOT NULL,
    business_id uuid,
    code text NOT NULL,
    data jsonb NOT NULL,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    CONSTRAINT outbox_events_pkey PRIMARY KEY (id),
    CONSTRAINT outbox_events_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id)
  );
  -- listEvents: a business's events newest first, optionally of one code.
  CREATE INDEX outbox_events_business_id_code_created_at_id_index ON outbox_events (business_id, code, created_at, id);
  CREATE INDEX outbox_events_business_id_created_at_id_index ON outbox_events (business_id, created_at, id);

  -- The outbox's pending events. A trigger of outbox_events inserts the row in the
  -- producer's transaction (src/events/sql/outbox_event_pending.sql); the relay deletes
  -- the rows it dispatches. Marking events dispatched by updating an indexed column of
  -- outbox_events instead wrote each event twice with every index entry of both versions
  -- (no HOT update, so WAL for every index of every event), and the relay's scan walked the dead
  -- entries. No foreign key to outbox_events: its rows are written only by that trigger,
  -- and a foreign key would lock the event row (FOR KEY SHARE, with its WAL record) at
  -- every insert.
  CREATE TABLE outbox_pending (
    created_at timestamp(3) with time zone NOT NULL,
    event_id uuid NOT NULL,
    business_id uuid,
    CONSTRAINT outbox_pending_pkey PRIMARY KEY (created_at, event_id)
  );

  CREATE TABLE webhook_deliveries (
    id uuid NOT NULL,
    business_id uuid NOT NULL,
    event_id uuid NOT NULL,
    endpoint_id uuid NOT NULL,
    kind text NOT NULL,
    status text NOT NULL,
    attempt_count integer NOT NULL DEFAULT 0,
    next_attempt_at timestamp(3) with time zone,
    last_status_code integer,
    last_error text,
    completed_at timestamp(3) with time zone,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    updated_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id),
    CONSTRAINT webhook_deliveries_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
    CONSTRAINT webhook_deliveries_endpoint_id_foreign FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints(id),
    CONSTRAINT webhook_deliveries_event_id_foreign FOREIGN KEY (event_id) REFERENCES outbox_events(id),
    CONSTRAINT webhook_deliveries_attempts CHECK (attempt_count >= 0),
    CONSTRAINT webhook_deliveries_kind_check CHECK (kind IN ('EVENT', 'REDELIVERY')),
    CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED', 'CANCELLED'))
  );
  -- The dispatcher creates one delivery per (event, endpoint); redeliveries add more.
  CREATE UNIQUE INDEX webhook_deliveries_once ON webhook_deliveries (event_id, endpoint_id) WHERE kind = 'EVENT';
  CREATE INDEX webhook_deliveries_business_id_event_id_index ON webhook_deliveries (business_id, event_id);
  CREATE INDEX webhook_deliveries_endpoint_id_status_index ON webhook_deliveries (endpoint_id, status);

  CREATE TABLE webhook_delivery_attempts (
    id uuid NOT NULL,
    business_id uuid NOT NULL,
    delivery_id uuid NOT NULL,
    event_id uuid NOT NULL,
    endpoint_id uuid NOT NULL,
    attempt integer NOT NULL,
    outcome text NOT NULL,
    status_code integer,
    latency_ms integer NOT NULL,
    error text,
    started_at timestamp(3) with time zone NOT NULL,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    CONSTRAINT webhook_delivery_attempts_pkey PRIMARY KEY (id),
    CONSTRAINT webhook_delivery_attempts_delivery_id_attempt_unique UNIQUE (delivery_id, attempt),
    CONSTRAINT webhook_delivery_attempts_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
    CONSTRAINT webhook_delivery_attempts_delivery_id_foreign FOREIGN KEY (delivery_id) REFERENCES webhook_deliveries(id),
    CONSTRAINT webhook_delivery_attempts_outcome_check CHECK (outcome IN ('SUCCEEDED', 'RETRY', 'FAILED', 'ENDPOINT_GONE'))
  );
  CREATE INDEX webhook_delivery_attempts_business_id_created_at_index ON webhook_delivery_attempts (business_id, created_at);
`;
