/**
 * The platform's own tables: no business's data. Their owners (src/db/tableOwners.ts): the
 * kernel's `settings` (src/kernel/secrets/settings.ts), the HTTP layer's `rate_limits`, db's
 * `sql_definitions`, and the businesses' `businesses` and `api_clients`.
 */
export const PLATFORM = `
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
