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
export const CUSTOMERS = `
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
