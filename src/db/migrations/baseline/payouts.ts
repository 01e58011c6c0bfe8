/**
 * Payouts to customers: money is always in exactly one place, on the business's payout
 * account, in transit, or on the customer's wallet (src/payouts/sql/). Bulk payouts: one
 * batch per (business, idempotency key), one row per item in the request's order; an
 * accepted item points at its payout, a rejected one keeps its refusal.
 */
export const PAYOUTS = `
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
