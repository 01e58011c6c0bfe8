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
export const LEDGER = `
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
