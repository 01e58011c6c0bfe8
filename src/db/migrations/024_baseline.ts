/**
 * The schema's baseline: every table, column, default, index, constraint and sequence
 * of the service, as the migrations 001–023 left them (src/db/legacyMigrations.ts),
 * written as DDL only. Functions and triggers are not here: each has its one current
 * definition in a `.sql` file of its capability, applied after the migrations
 * (src/db/sqlFunctions.ts; a trigger function's file also creates its trigger).
 *
 * Numbered 024, after the last migration it replaces, so that a number never names two
 * migrations: "migration 022" in the history means 022_outbox_pending, and the next
 * migration is 025. A database migrated by 001–023 is not migrated by this file: its
 * recorded names are replaced by this one at start (src/db/legacyMigrations.ts), since
 * its schema already is this one (test/platform/database/schemaUpgrade.test.ts checks both ways
 * give the same catalog). The live schema, generated: docs/schema.md.
 *
 * Names of constraints and indexes are the ones the old migrations gave (mostly knex's
 * `<table>_<columns>_<unique|foreign|index|check>`), because code and tests name some of
 * them (e.g. `bulk_payouts_counts_range`) and upgraded databases keep them. Columns are in
 * the order they were added, which is the order of every upgraded table's row type.
 *
 * Conventions: money is `numeric(20,2)` (exactly the API's two-decimal strings, never a
 * float); timestamps are `timestamptz(3)`, the API's millisecond precision, so cursors
 * built from them round-trip exactly. Every table of a business's data carries
 * `business_id` (test/platform/database/sqlDefinitions.test.ts lists the exceptions), so that the
 * schema can be distributed by it.
 *
 * No default, check or index calls a function of the `.sql` files (they do not exist yet
 * when this runs, and a test keeps it so): should one ever need to, the function's file
 * sets it (`ALTER TABLE … ALTER COLUMN … SET DEFAULT`), as it creates its trigger.
 *
 * The sections below group the tables in creation order (a table after those it references),
 * not strictly by owner: each table's owner, the one room that writes its rows, is in
 * src/db/tableOwners.ts, and a section says which of its tables belong to another room.
 */
import type { Knex } from 'knex';

/**
 * The platform's own tables: no business's data. Their owners (src/db/tableOwners.ts): the
 * kernel's `settings` (src/kernel/secrets/settings.ts), the HTTP layer's `rate_limits`, db's
 * `sql_definitions`, and the businesses' `businesses` and `api_clients`.
 */
const PLATFORM = `
  -- The service's own secrets and keys (sandbox), shared by every instance.
  CREATE TABLE settings (
    key text NOT NULL,
    value text NOT NULL,
    CONSTRAINT settings_pkey PRIMARY KEY (key)
  );

  -- Rate-limit counters shared by every instance (src/http/rateLimit.ts), in the layout of
  -- rate-limiter-flexible's PostgreSQL store (expire in epoch ms). UNLOGGED: counters are
  -- worth nothing after a crash (they restart at zero, as a new window would), and a
  -- transaction writing only unlogged tables waits for no WAL flush at commit.
  CREATE UNLOGGED TABLE rate_limits (
    key character varying(255) NOT NULL,
    points integer NOT NULL DEFAULT 0,
    expire bigint,
    CONSTRAINT rate_limits_pkey PRIMARY KEY (key)
  );

  -- The SQL definitions' record (src/db/sqlFunctions.ts): per file, the SHA-256 of the
  -- content applied and the functions it defines (so a removed file's are dropped).
  CREATE TABLE sql_definitions (
    name text NOT NULL,
    sha256 text NOT NULL,
    functions text[] NOT NULL,
    applied_at timestamp(3) with time zone NOT NULL DEFAULT now(),
    CONSTRAINT sql_definitions_pkey PRIMARY KEY (name)
  );

  -- Account numbers (src/ledger/accountNumbers.ts: prefix, serial, Luhn digit), transaction
  -- references (TXN + 12 digits, ledger_post.sql) and card tokens: unique by construction.
  CREATE SEQUENCE account_number_seq START 1;
  CREATE SEQUENCE transaction_reference_seq START 1;
  CREATE SEQUENCE card_token_seq START 1000000001;

  CREATE TABLE businesses (
    id uuid NOT NULL,
    name text NOT NULL,
    external_reference text,
    status text NOT NULL DEFAULT 'ACTIVE',
    currency character(3) NOT NULL,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    updated_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    -- The payout whitelist is enforced (payout_create.sql refuses receivers not on it).
    payout_whitelist_enforced boolean NOT NULL DEFAULT false,
    CONSTRAINT businesses_pkey PRIMARY KEY (id)
  );
  CREATE INDEX businesses_created_at_id_index ON businesses (created_at, id);

  CREATE TABLE api_clients (
    id uuid NOT NULL,
    client_id text NOT NULL,
    secret_hash text NOT NULL,
    kind text NOT NULL,
    business_id uuid,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    CONSTRAINT api_clients_pkey PRIMARY KEY (id),
    CONSTRAINT api_clients_client_id_unique UNIQUE (client_id),
    CONSTRAINT api_clients_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
    CONSTRAINT api_clients_kind_check CHECK (kind IN ('PLATFORM', 'BUSINESS'))
  );
`;

/**
 * The ledger. The database itself guards it: entries are immutable and every ledger
 * transaction's entries sum to zero at commit (triggers of src/ledger/sql/), and the
 * balances that may not go negative are CHECK constraints. Account kinds: OPERATIONAL,
 * SETTLEMENT (mirrors money outside the closed loop, may go negative), WALLET, PAYOUT and
 * IN_TRANSIT (a payout's money between the payout account and the customer's wallet);
 * one account of each kind but WALLET per business.
 *
 * Two tables here are not the ledger's (src/db/tableOwners.ts): `labels` is the businesses'
 * (src/businesses/labels.ts; created first because accounts point at it), and
 * `idempotency_keys` is the kernel's (its functions are src/kernel/sql/idempotency_*.sql).
 */
const LEDGER = `
  -- The labels a business gives its wallets: the businesses' (src/businesses/labels.ts).
  CREATE TABLE labels (
    id uuid NOT NULL,
    business_id uuid NOT NULL,
    name text NOT NULL,
    description text,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    updated_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    CONSTRAINT labels_pkey PRIMARY KEY (id),
    CONSTRAINT labels_business_id_name_unique UNIQUE (business_id, name),
    CONSTRAINT labels_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id)
  );
  CREATE INDEX labels_business_id_created_at_id_index ON labels (business_id, created_at, id);

  CREATE TABLE accounts (
    id uuid NOT NULL,
    business_id uuid NOT NULL,
    kind text NOT NULL,
    account_number text NOT NULL,
    currency character(3) NOT NULL,
    balance numeric(20,2) NOT NULL DEFAULT '0'::numeric,
    can_overdraft boolean NOT NULL DEFAULT false,
    status text NOT NULL DEFAULT 'ACTIVE',
    name text,
    label_id uuid,
    external_reference text,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    updated_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    CONSTRAINT accounts_pkey PRIMARY KEY (id),
    CONSTRAINT accounts_account_number_unique UNIQUE (account_number),
    CONSTRAINT accounts_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
    CONSTRAINT accounts_label_id_foreign FOREIGN KEY (label_id) REFERENCES labels(id),
    CONSTRAINT accounts_kind_check CHECK (kind IN ('OPERATIONAL', 'SETTLEMENT', 'WALLET', 'PAYOUT', 'IN_TRANSIT')),
    CONSTRAINT accounts_no_forbidden_overdraft CHECK (kind = 'SETTLEMENT' OR can_overdraft OR balance >= 0)
  );
  CREATE UNIQUE INDEX accounts_one_business_account_per_kind ON accounts (business_id, kind) WHERE kind <> 'WALLET';
  CREATE INDEX accounts_business_id_kind_created_at_id_index ON accounts (business_id, kind, created_at, id);
  CREATE INDEX accounts_business_id_name_index ON accounts (business_id, name);

  CREATE TABLE transactions (
    id uuid NOT NULL,
    reference text NOT NULL,
    business_id uuid NOT NULL,
    type text NOT NULL,
    status text NOT NULL,
    amount numeric(20,2) NOT NULL,
    currency character(3) NOT NULL,
    debit_account_id uuid NOT NULL,
    credit_account_id uuid NOT NULL,
    external_reference text,
    notes text,
    original_transaction_id uuid,
    reversal_transaction_id uuid,
    refunded_amount numeric(20,2) NOT NULL DEFAULT '0'::numeric,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    CONSTRAINT transactions_pkey PRIMARY KEY (id),
    CONSTRAINT transactions_reference_unique UNIQUE (reference),
    CONSTRAINT transactions_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
    CONSTRAINT transactions_credit_account_id_foreign FOREIGN KEY (credit_account_id) REFERENCES accounts(id),
    CONSTRAINT transactions_debit_account_id_foreign FOREIGN KEY (debit_account_id) REFERENCES accounts(id),
    CONSTRAINT transactions_original_transaction_id_foreign FOREIGN KEY (original_transaction_id) REFERENCES transactions(id),
    CONSTRAINT transactions_reversal_transaction_id_foreign FOREIGN KEY (reversal_transaction_id) REFERENCES transactions(id),
    CONSTRAINT transactions_amount_positive CHECK (amount > 0),
    CONSTRAINT transactions_refund_cap CHECK (refunded_amount >= 0 AND refunded_amount <= amount),
    CONSTRAINT transactions_two_sides CHECK (debit_account_id <> credit_account_id),
    CONSTRAINT transactions_type_check CHECK (type IN ('TOPUP', 'FUND', 'PAYOUT', 'TRANSFER', 'WITHDRAWAL', 'REFUND', 'REVERSAL',
      'CUSTOMER_PAYOUT', 'CUSTOMER_PAYOUT_COMPLETION', 'CUSTOMER_PAYOUT_RETURN', 'CARD_PURCHASE'))
  );
  CREATE INDEX transactions_business_id_created_at_id_index ON transactions (business_id, created_at, id);
  CREATE INDEX transactions_credit_account_id_created_at_id_index ON transactions (credit_account_id, created_at, id);
  CREATE INDEX transactions_debit_account_id_created_at_id_index ON transactions (debit_account_id, created_at, id);
  CREATE INDEX transactions_original_transaction_id_index ON transactions (original_transaction_id);

  -- business_id has no foreign key of its own: it is its transaction's business, which that
  -- transaction's key already checks; a second check per entry would cost two lookups per movement.
  CREATE TABLE ledger_entries (
    id bigserial,
    transaction_id uuid NOT NULL,
    account_id uuid NOT NULL,
    amount numeric(20,2) NOT NULL,
    balance_after numeric(20,2) NOT NULL,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    business_id uuid NOT NULL,
    CONSTRAINT ledger_entries_pkey PRIMARY KEY (id),
    CONSTRAINT ledger_entries_account_id_foreign FOREIGN KEY (account_id) REFERENCES accounts(id),
    CONSTRAINT ledger_entries_transaction_id_foreign FOREIGN KEY (transaction_id) REFERENCES transactions(id),
    CONSTRAINT ledger_entries_non_zero CHECK (amount <> 0)
  );
  CREATE INDEX ledger_entries_account_id_id_index ON ledger_entries (account_id, id);
  CREATE INDEX ledger_entries_transaction_id_index ON ledger_entries (transaction_id);

  -- Idempotency-Key records, the kernel's (src/kernel/idempotency/idempotency.ts, src/kernel/sql/idempotency_*.sql).
  -- The primary key is (scope, key): the unique index that refuses a second row for a key,
  -- so two effects can never both commit; the random id is kept as a column but not
  -- indexed (one random b-tree fewer to write per keyed request). business_id is NULL for
  -- the platform's own keys and has no foreign key: a row records whose request it
  -- answered, even a request naming no business.
  CREATE TABLE idempotency_keys (
    id uuid NOT NULL,
    scope text NOT NULL,
    key text NOT NULL,
    request_hash text NOT NULL,
    state text NOT NULL,
    response_status integer,
    response_body jsonb,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    expires_at timestamp(3) with time zone NOT NULL,
    business_id uuid,
    CONSTRAINT idempotency_keys_pkey PRIMARY KEY (scope, key),
    CONSTRAINT idempotency_keys_state_check CHECK (state IN ('IN_PROGRESS', 'COMPLETED'))
  );
`;

/**
 * Customers, their onboarding, identity and mobile number changes and the providers' requests
 * (what the customer flows asked the identity and screening providers); and, kept in this
 * section but owned by other rooms (src/db/tableOwners.ts): the one OTP engine's operations
 * and the sandbox's per-business clock, the kernel's (src/kernel/otp/, src/kernel/clock.ts),
 * and the providers' callback record, sandbox SMS outbox and provider outages, the
 * providers' (src/providers/). OTP codes are never stored, only a keyed hash;
 * national ids only sealed (AES-256-GCM) and as a keyed hash for lookups and uniqueness
 * (src/customers/identityData.ts). Rule timestamps (expiry, completion) come from the
 * business's clock (src/kernel/clock.ts); created_at/updated_at are the database's.
 */
const CUSTOMERS = `
  -- How far one business's sandbox clock runs ahead of real time: the kernel's (src/kernel/clock.ts).
  CREATE TABLE sandbox_clocks (
    business_id uuid NOT NULL,
    offset_ms bigint NOT NULL DEFAULT '0'::bigint,
    updated_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    CONSTRAINT sandbox_clocks_pkey PRIMARY KEY (business_id),
    CONSTRAINT sandbox_clocks_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
    CONSTRAINT sandbox_clocks_forward CHECK (offset_ms >= 0)
  );

  -- The sandbox SMS provider: what a handset would receive; the providers' (src/providers/sms.ts).
  CREATE TABLE sandbox_sms_messages (
    id uuid NOT NULL,
    business_id uuid NOT NULL,
    mobile_number text NOT NULL,
    text text NOT NULL,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    CONSTRAINT sandbox_sms_messages_pkey PRIMARY KEY (id),
    CONSTRAINT sandbox_sms_messages_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id)
  );
  CREATE INDEX sandbox_sms_messages_business_id_created_at_id_index ON sandbox_sms_messages (business_id, created_at, id);
  -- The name as knex made it, cut by PostgreSQL at 63 bytes.
  CREATE INDEX sandbox_sms_messages_business_id_mobile_number_created_at_id_in
    ON sandbox_sms_messages (business_id, mobile_number, created_at, id);

  -- Sandbox provider outages: the next \`remaining\` calls of a provider fail; the providers' (src/providers/outages.ts).
  CREATE TABLE sandbox_provider_outages (
    business_id uuid NOT NULL,
    provider text NOT NULL,
    remaining integer NOT NULL,
    CONSTRAINT sandbox_provider_outages_pkey PRIMARY KEY (business_id, provider),
    CONSTRAINT sandbox_provider_outages_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id)
  );

  -- The one OTP engine's operations: the kernel's (src/kernel/otp/otp.ts).
  CREATE TABLE otp_operations (
    id uuid NOT NULL,
    business_id uuid NOT NULL,
    purpose text NOT NULL,
    mobile_number text NOT NULL,
    code_hash text NOT NULL,
    digits integer NOT NULL,
    status text NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    max_attempts integer NOT NULL,
    resend_count integer NOT NULL DEFAULT 0,
    previous_operation_id uuid,
    sent_at timestamp(3) with time zone NOT NULL,
    expires_at timestamp(3) with time zone NOT NULL,
    verified_at timestamp(3) with time zone,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    updated_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    CONSTRAINT otp_operations_pkey PRIMARY KEY (id),
    CONSTRAINT otp_operations_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
    CONSTRAINT otp_operations_previous_operation_id_foreign FOREIGN KEY (previous_operation_id) REFERENCES otp_operations(id),
    CONSTRAINT otp_operations_attempts_cap CHECK (attempts >= 0 AND attempts <= max_attempts),
    CONSTRAINT otp_operations_status_check CHECK (status IN ('PENDING', 'VERIFIED', 'FAILED', 'EXPIRED'))
  );
  CREATE INDEX otp_operations_business_id_created_at_index ON otp_operations (business_id, created_at);

  CREATE TABLE customers (
    id uuid NOT NULL,
    business_id uuid NOT NULL,
    status text NOT NULL,
    mobile_number text NOT NULL,
    locale text NOT NULL,
    external_reference text,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    updated_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    full_name text,
    date_of_birth text, -- YYYY-MM-DD, as received
    national_id_hash text,
    national_id_sealed text,
    occupation_class text,
    occupation text,
    employer_name text,
    income_source text,
    monthly_income_range text,
    politically_exposed boolean,
    pep_relation text,
    risk_rating text,
    wallet_id uuid,
    activated_at timestamp(3) with time zone,
    -- The last completed mobile number change (one per 24 hours).
    mobile_number_changed_at timestamp(3) with time zone,
    CONSTRAINT customers_pkey PRIMARY KEY (id),
    CONSTRAINT customers_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
    CONSTRAINT customers_wallet_id_foreign FOREIGN KEY (wallet_id) REFERENCES accounts(id),
    CONSTRAINT customers_status_check CHECK (status IN ('PENDING', 'ACTIVE', 'INACTIVE'))
  );
  -- One ACTIVE customer per mobile number, and per national id, in a business.
  CREATE UNIQUE INDEX customers_active_mobile_number ON customers (business_id, mobile_number) WHERE status = 'ACTIVE';
  CREATE UNIQUE INDEX customers_active_national_id ON customers (business_id, national_id_hash) WHERE status = 'ACTIVE';
  CREATE INDEX customers_business_id_created_at_id_index ON customers (business_id, created_at, id);
  CREATE INDEX customers_business_id_mobile_number_index ON customers (business_id, mobile_number);
  CREATE INDEX customers_national_id ON customers (business_id, national_id_hash);

  CREATE TABLE onboarding_sessions (
    id uuid NOT NULL,
    business_id uuid NOT NULL,
    customer_id uuid NOT NULL,
    status text NOT NULL,
    status_reason text,
    mobile_number text NOT NULL,
    locale text NOT NULL,
    otp_operation_id uuid NOT NULL,
    expires_at timestamp(3) with time zone NOT NULL,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    updated_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    CONSTRAINT onboarding_sessions_pkey PRIMARY KEY (id),
    CONSTRAINT onboarding_sessions_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
    CONSTRAINT onboarding_sessions_customer_id_foreign FOREIGN KEY (customer_id) REFERENCES customers(id),
    CONSTRAINT onboarding_sessions_otp_operation_id_foreign FOREIGN KEY (otp_operation_id) REFERENCES otp_operations(id)
  );
  CREATE INDEX onboarding_sessions_business_id_mobile_number_status_index ON onboarding_sessions (business_id, mobile_number, status);
  CREATE INDEX onboarding_sessions_customer_id_index ON onboarding_sessions (customer_id);

  -- Requests made to identity and screening providers: the id is the reference their callbacks carry.
  CREATE TABLE provider_requests (
    id uuid NOT NULL,
    business_id uuid NOT NULL,
    provider text NOT NULL,
    kind text NOT NULL,
    subject_type text NOT NULL,
    subject_id uuid NOT NULL,
    status text NOT NULL,
    outcome text,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    completed_at timestamp(3) with time zone,
    CONSTRAINT provider_requests_pkey PRIMARY KEY (id),
    CONSTRAINT provider_requests_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
    CONSTRAINT provider_requests_kind_check CHECK (kind IN ('IDENTITY', 'MOBILE_OWNERSHIP', 'SCREENING')),
    CONSTRAINT provider_requests_provider_check CHECK (provider IN ('IDENTITY_VERIFICATION', 'SCREENING')),
    CONSTRAINT provider_requests_status_check CHECK (status IN ('PENDING', 'COMPLETED')),
    CONSTRAINT provider_requests_subject_type_check CHECK (subject_type IN ('ONBOARDING', 'MOBILE_NUMBER_CHANGE'))
  );
  CREATE INDEX provider_requests_subject_type_subject_id_index ON provider_requests (subject_type, subject_id);

  -- Provider event ids already processed (replay protection of callbacks); the providers' (src/providers/callbackEvents.ts).
  CREATE TABLE provider_callback_events (
    provider text NOT NULL,
    event_id text NOT NULL,
    business_id uuid NOT NULL,
    received_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    CONSTRAINT provider_callback_events_pkey PRIMARY KEY (provider, event_id),
    CONSTRAINT provider_callback_events_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id)
  );

  -- One session per mobile number change request, from the profile settings or the login screen.
  CREATE TABLE mobile_number_change_sessions (
    id uuid NOT NULL,
    business_id uuid NOT NULL,
    customer_id uuid NOT NULL,
    channel text NOT NULL,
    status text NOT NULL,
    status_reason text,
    old_mobile_number text NOT NULL,
    new_mobile_number text NOT NULL,
    locale text NOT NULL,
    otp_operation_id uuid NOT NULL,
    ownership_check text NOT NULL,
    expires_at timestamp(3) with time zone NOT NULL,
    completed_at timestamp(3) with time zone,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    updated_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    CONSTRAINT mobile_number_change_sessions_pkey PRIMARY KEY (id),
    CONSTRAINT mobile_number_change_sessions_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
    CONSTRAINT mobile_number_change_sessions_customer_id_foreign FOREIGN KEY (customer_id) REFERENCES customers(id),
    CONSTRAINT mobile_number_change_sessions_otp_operation_id_foreign FOREIGN KEY (otp_operation_id) REFERENCES otp_operations(id),
    CONSTRAINT mobile_number_change_sessions_channel_check CHECK (channel IN ('PROFILE', 'LOGIN')),
    CONSTRAINT mobile_number_change_sessions_ownership_check_check CHECK (ownership_check IN ('PENDING', 'CONFIRMED', 'REJECTED'))
  );
  CREATE INDEX mobile_number_change_sessions_customer_id_status_index ON mobile_number_change_sessions (customer_id, status);
`;

/**
 * Webhooks: endpoints (secrets sealed at rest, src/webhooks/secrets.ts), the transactional
 * outbox (written in the same database transaction as the change it reports), and one
 * delivery per (event, endpoint) or per redelivery request, with one row per HTTP attempt.
 * The job queue (pg-boss) keeps its own tables in the `pgboss` schema.
 */
const WEBHOOKS = `
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
  -- producer's transaction (src/webhooks/sql/outbox_event_pending.sql); the relay deletes
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

/**
 * Cards. A card's PAN, CVV and PIN are never stored in clear: each is sealed with
 * AES-256-GCM with the version of its key beside it (`<field>_key_version`), so keys
 * rotate. A damaged or expired card's replacement keeps its PAN, so the PAN's keyed
 * fingerprint is shared by the cards of one line: uniqueness is (pan_fingerprint,
 * pan_generation), a newly drawn PAN being generation 0. Tokens come from a sequence:
 * unique by construction, saying nothing about the PAN. The OTP-guarded card steps
 * share card_otp_sessions by purpose, each keeping what it will do once verified.
 */
const CARDS = `
  CREATE TABLE card_issuances (
    id uuid NOT NULL,
    business_id uuid NOT NULL,
    customer_id uuid NOT NULL,
    account_id uuid NOT NULL,
    idempotency_key text NOT NULL,
    card_type text NOT NULL,
    design text NOT NULL,
    status text NOT NULL,
    otp_operation_id uuid,
    card_id uuid,
    expires_at timestamp(3) with time zone NOT NULL,
    issued_at timestamp(3) with time zone,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    updated_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    CONSTRAINT card_issuances_pkey PRIMARY KEY (id),
    CONSTRAINT card_issuances_business_id_idempotency_key_unique UNIQUE (business_id, idempotency_key),
    CONSTRAINT card_issuances_account_id_foreign FOREIGN KEY (account_id) REFERENCES accounts(id),
    CONSTRAINT card_issuances_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
    CONSTRAINT card_issuances_customer_id_foreign FOREIGN KEY (customer_id) REFERENCES customers(id),
    CONSTRAINT card_issuances_otp_operation_id_foreign FOREIGN KEY (otp_operation_id) REFERENCES otp_operations(id),
    CONSTRAINT card_issuances_card_type_check CHECK (card_type IN ('VIRTUAL', 'PHYSICAL'))
  );
  CREATE INDEX card_issuances_customer_id_index ON card_issuances (customer_id);

  CREATE TABLE cards (
    id uuid NOT NULL,
    business_id uuid NOT NULL,
    customer_id uuid NOT NULL,
    account_id uuid NOT NULL,
    issuance_id uuid NOT NULL,
    token bigint NOT NULL DEFAULT nextval('card_token_seq'::regclass),
    type text NOT NULL,
    status text NOT NULL,
    design text NOT NULL,
    last_4_digits text NOT NULL,
    expiry_date text NOT NULL,
    pan_fingerprint text NOT NULL,
    pan_sealed text NOT NULL,
    pan_key_version integer NOT NULL,
    cvv_sealed text NOT NULL,
    cvv_key_version integer NOT NULL,
    pin_sealed text,
    pin_key_version integer,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    updated_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    pan_generation integer NOT NULL DEFAULT 0,
    replaces_card_id uuid,
    replaced_by_card_id uuid,
    replacement_reason text,
    -- Wrong PINs in a row (src/cards/simulator.ts); at 3 the PIN is blocked until a new one is set.
    pin_failed_tries integer NOT NULL DEFAULT 0,
    CONSTRAINT cards_pkey PRIMARY KEY (id),
    CONSTRAINT cards_pan_fingerprint_generation_unique UNIQUE (pan_fingerprint, pan_generation),
    CONSTRAINT cards_token_unique UNIQUE (token),
    CONSTRAINT cards_account_id_foreign FOREIGN KEY (account_id) REFERENCES accounts(id),
    CONSTRAINT cards_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
    CONSTRAINT cards_customer_id_foreign FOREIGN KEY (customer_id) REFERENCES customers(id),
    CONSTRAINT cards_issuance_id_foreign FOREIGN KEY (issuance_id) REFERENCES card_issuances(id),
    CONSTRAINT cards_replaced_by_card_id_foreign FOREIGN KEY (replaced_by_card_id) REFERENCES cards(id),
    CONSTRAINT cards_replaces_card_id_foreign FOREIGN KEY (replaces_card_id) REFERENCES cards(id),
    CONSTRAINT cards_expiry_date_format CHECK (expiry_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
    CONSTRAINT cards_last_4_digits_format CHECK (last_4_digits ~ '^[0-9]{4}$'),
    CONSTRAINT cards_pin_failed_tries_range CHECK (pin_failed_tries >= 0 AND pin_failed_tries <= 3),
    CONSTRAINT cards_pin_sealed_with_version CHECK ((pin_sealed IS NULL) = (pin_key_version IS NULL)),
    CONSTRAINT cards_replacement_reason_check CHECK (replacement_reason IN ('DAMAGED', 'EXPIRED', 'LOST', 'STOLEN')),
    CONSTRAINT cards_type_check CHECK (type IN ('VIRTUAL', 'PHYSICAL'))
  );
  CREATE UNIQUE INDEX cards_replaces_card_id_unique ON cards (replaces_card_id) WHERE replaces_card_id IS NOT NULL;
  CREATE INDEX cards_business_id_customer_id_index ON cards (business_id, customer_id);
  -- An issuance and its card point at each other: the issuance's link is added once both tables exist.
  ALTER TABLE card_issuances ADD CONSTRAINT card_issuances_card_id_foreign FOREIGN KEY (card_id) REFERENCES cards(id);

  -- A card step confirmed by an OTP: the session id is what the step's confirmation takes as session_id.
  CREATE TABLE card_otp_sessions (
    id uuid NOT NULL,
    business_id uuid NOT NULL,
    card_id uuid NOT NULL,
    purpose text NOT NULL,
    otp_operation_id uuid NOT NULL,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    pin_sealed text,
    pin_key_version integer,
    reason text,
    CONSTRAINT card_otp_sessions_pkey PRIMARY KEY (id),
    CONSTRAINT card_otp_sessions_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
    CONSTRAINT card_otp_sessions_card_id_foreign FOREIGN KEY (card_id) REFERENCES cards(id),
    CONSTRAINT card_otp_sessions_otp_operation_id_foreign FOREIGN KEY (otp_operation_id) REFERENCES otp_operations(id),
    CONSTRAINT card_otp_sessions_pin_of_set_pin CHECK ((purpose = 'SET_PIN') = (pin_sealed IS NOT NULL)),
    CONSTRAINT card_otp_sessions_pin_with_version CHECK ((pin_sealed IS NULL) = (pin_key_version IS NULL)),
    CONSTRAINT card_otp_sessions_purpose_check CHECK (purpose IN ('DISPLAY_SENSITIVE_DATA', 'SET_PIN', 'ACTIVATION', 'CONVERSION', 'REPLACEMENT')),
    CONSTRAINT card_otp_sessions_reason_check CHECK (reason IN ('DAMAGED', 'EXPIRED', 'LOST', 'STOLEN')),
    CONSTRAINT card_otp_sessions_reason_of_replacement CHECK ((purpose = 'REPLACEMENT') = (reason IS NOT NULL))
  );
  CREATE INDEX card_otp_sessions_card_id_index ON card_otp_sessions (card_id);

  -- Sandbox tokenization: a simulated provisioning of a card into a device wallet, confirmed
  -- by a code sent to the customer or by the issuer's phone line (src/cards/tokenization.ts).
  CREATE TABLE tokenization_activation_requests (
    id uuid NOT NULL,
    business_id uuid NOT NULL,
    card_id uuid NOT NULL,
    wallet text NOT NULL,
    device text NOT NULL,
    message_type text NOT NULL,
    status text NOT NULL,
    notification_id uuid NOT NULL,
    otp_operation_id uuid NOT NULL,
    verification_result text,
    otp_sent_at timestamp(3) with time zone NOT NULL,
    otp_verified_at timestamp(3) with time zone,
    ivr_completed_at timestamp(3) with time zone,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    updated_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    CONSTRAINT tokenization_activation_requests_pkey PRIMARY KEY (id),
    CONSTRAINT tokenization_activation_requests_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
    CONSTRAINT tokenization_activation_requests_card_id_foreign FOREIGN KEY (card_id) REFERENCES cards(id),
    CONSTRAINT tokenization_activation_requests_otp_operation_id_foreign FOREIGN KEY (otp_operation_id) REFERENCES otp_operations(id)
  );
  CREATE INDEX tokenization_activation_requests_business_id_card_id_index ON tokenization_activation_requests (business_id, card_id);
`;

/**
 * Payouts to customers: money is always in exactly one place, on the business's payout
 * account, in transit, or on the customer's wallet (src/payouts/sql/). Bulk payouts: one
 * batch per (business, idempotency key), one row per item in the request's order; an
 * accepted item points at its payout, a rejected one keeps its refusal.
 */
const PAYOUTS = `
  CREATE TABLE payouts (
    id uuid NOT NULL,
    business_id uuid NOT NULL,
    customer_id uuid NOT NULL,
    wallet_id uuid NOT NULL,
    amount numeric(20,2) NOT NULL,
    currency character(3) NOT NULL,
    status text NOT NULL,
    purpose text,
    external_reference text,
    failure_code text,
    creation_transaction_id uuid NOT NULL,
    outcome_transaction_id uuid,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    updated_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    CONSTRAINT payouts_pkey PRIMARY KEY (id),
    CONSTRAINT payouts_creation_transaction_id_unique UNIQUE (creation_transaction_id),
    CONSTRAINT payouts_outcome_transaction_id_unique UNIQUE (outcome_transaction_id),
    CONSTRAINT payouts_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
    CONSTRAINT payouts_creation_transaction_id_foreign FOREIGN KEY (creation_transaction_id) REFERENCES transactions(id),
    CONSTRAINT payouts_customer_id_foreign FOREIGN KEY (customer_id) REFERENCES customers(id),
    CONSTRAINT payouts_outcome_transaction_id_foreign FOREIGN KEY (outcome_transaction_id) REFERENCES transactions(id),
    CONSTRAINT payouts_wallet_id_foreign FOREIGN KEY (wallet_id) REFERENCES accounts(id),
    CONSTRAINT payouts_amount_positive CHECK (amount > 0),
    CONSTRAINT payouts_status_check CHECK (status IN ('PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'))
  );
  CREATE INDEX payouts_business_id_created_at_id_index ON payouts (business_id, created_at, id);
  CREATE INDEX payouts_business_id_status_index ON payouts (business_id, status);

  -- The customers a business may pay while it enforces its whitelist; one row per customer.
  CREATE TABLE payout_whitelist_entries (
    id uuid NOT NULL,
    business_id uuid NOT NULL,
    customer_id uuid NOT NULL,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    CONSTRAINT payout_whitelist_entries_pkey PRIMARY KEY (id),
    CONSTRAINT payout_whitelist_entries_business_id_customer_id_unique UNIQUE (business_id, customer_id),
    CONSTRAINT payout_whitelist_entries_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
    CONSTRAINT payout_whitelist_entries_customer_id_foreign FOREIGN KEY (customer_id) REFERENCES customers(id)
  );
  CREATE INDEX payout_whitelist_entries_business_id_created_at_id_index ON payout_whitelist_entries (business_id, created_at, id);

  -- request_hash: SHA-256 of the request (src/kernel/idempotency/idempotency.ts), which a replay must match.
  -- The counts per state are kept on the row, moved with the payouts in each move's
  -- transaction (payout_bulk_count.sql), so that reading a bulk payout is one row, not a
  -- join of its items with their payouts, whose cost grows with the batch on a busy
  -- database. PENDING is accepted_count less the other three, REJECTED
  -- item_count - accepted_count; the CHECK keeps them within what the batch accepted.
  CREATE TABLE bulk_payouts (
    id uuid NOT NULL,
    business_id uuid NOT NULL,
    idempotency_key text NOT NULL,
    request_hash text NOT NULL,
    item_count integer NOT NULL,
    accepted_count integer NOT NULL,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    processing_count integer NOT NULL DEFAULT 0,
    completed_count integer NOT NULL DEFAULT 0,
    failed_count integer NOT NULL DEFAULT 0,
    CONSTRAINT bulk_payouts_pkey PRIMARY KEY (id),
    CONSTRAINT bulk_payouts_business_id_idempotency_key_unique UNIQUE (business_id, idempotency_key),
    CONSTRAINT bulk_payouts_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
    CONSTRAINT bulk_payouts_counts_range CHECK (processing_count >= 0 AND completed_count >= 0 AND failed_count >= 0
      AND processing_count + completed_count + failed_count <= accepted_count)
  );

  -- amount: the requested amount when it is a valid amount (a rejected item's may not be).
  CREATE TABLE bulk_payout_items (
    id uuid NOT NULL,
    business_id uuid NOT NULL,
    bulk_payout_id uuid NOT NULL,
    item_index integer NOT NULL,
    payout_id uuid,
    customer_id uuid,
    amount numeric(20,2),
    currency character(3) NOT NULL,
    external_reference text,
    rejection_code text,
    rejection_detail text,
    created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    CONSTRAINT bulk_payout_items_pkey PRIMARY KEY (id),
    CONSTRAINT bulk_payout_items_bulk_payout_id_item_index_unique UNIQUE (bulk_payout_id, item_index),
    CONSTRAINT bulk_payout_items_payout_id_unique UNIQUE (payout_id),
    CONSTRAINT bulk_payout_items_bulk_payout_id_foreign FOREIGN KEY (bulk_payout_id) REFERENCES bulk_payouts(id),
    CONSTRAINT bulk_payout_items_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
    CONSTRAINT bulk_payout_items_customer_id_foreign FOREIGN KEY (customer_id) REFERENCES customers(id),
    CONSTRAINT bulk_payout_items_payout_id_foreign FOREIGN KEY (payout_id) REFERENCES payouts(id),
    CONSTRAINT bulk_payout_items_payout_or_rejection CHECK ((payout_id IS NULL) <> (rejection_code IS NULL))
  );
`;

export async function up(knex: Knex): Promise<void> {
  for (const section of [PLATFORM, LEDGER, CUSTOMERS, WEBHOOKS, CARDS, PAYOUTS]) await knex.raw(section);
}

export async function down(): Promise<void> {
  throw new Error('024_baseline is the first migration: to start over, drop the database (or its schema) instead');
}
