/**
 * Cards. A card's PAN, CVV and PIN are never stored in clear: each is sealed with
 * AES-256-GCM with the version of its key beside it (`<field>_key_version`), so keys
 * rotate. A damaged or expired card's replacement keeps its PAN, so the PAN's keyed
 * fingerprint is shared by the cards of one line: uniqueness is (pan_fingerprint,
 * pan_generation), a newly drawn PAN being generation 0. Tokens come from a sequence:
 * unique by construction, saying nothing about the PAN. The OTP-guarded card steps
 * share card_otp_sessions by purpose, each keeping what it will do once verified.
 */
export const CARDS = `
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
