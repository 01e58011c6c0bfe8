/**
 * Payout approvals (src/payouts/approvals.ts): a business's rules for a second pair of eyes
 * (`payout_approval_threshold`: a payout of at least this amount needs an approval, none when
 * null; `bulk_payout_approval`: every bulk payout needs one) and the requests waiting for,
 * or decided by, an approver. A tenant table (business_id in every key, so it distributes by
 * business on Citus); listed newest first per business, with or without a status.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE businesses
      ADD COLUMN payout_approval_threshold numeric(20, 2) CHECK (payout_approval_threshold >= 0),
      ADD COLUMN bulk_payout_approval boolean NOT NULL DEFAULT false;
    CREATE TABLE payout_approvals (
      id uuid NOT NULL,
      business_id uuid NOT NULL,
      kind text NOT NULL,
      status text NOT NULL DEFAULT 'PENDING',
      request jsonb NOT NULL,
      amount numeric(20, 2) NOT NULL,
      item_count integer NOT NULL,
      maker_type text NOT NULL,
      maker_id text NOT NULL,
      decided_by_type text,
      decided_by_id text,
      rejection_reason text,
      failure_code text,
      failure_detail text,
      payout_id uuid,
      bulk_payout_id uuid,
      created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      updated_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      decided_at timestamp(3) with time zone,
      CONSTRAINT payout_approvals_pkey PRIMARY KEY (id, business_id),
      CONSTRAINT payout_approvals_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
      CONSTRAINT payout_approvals_kind_check CHECK (kind IN ('PAYOUT', 'BULK_PAYOUT')),
      CONSTRAINT payout_approvals_status_check CHECK (status IN ('PENDING', 'APPROVED', 'FAILED', 'REJECTED')),
      CONSTRAINT payout_approvals_maker_type_check CHECK (maker_type IN ('api_key', 'user')),
      CONSTRAINT payout_approvals_decided_by_type_check CHECK (decided_by_type IN ('api_key', 'user'))
    );
    CREATE INDEX payout_approvals_business_id_created_at_id_index ON payout_approvals (business_id, created_at, id);
    CREATE INDEX payout_approvals_business_id_status_created_at_id_index ON payout_approvals (business_id, status, created_at, id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE payout_approvals; ALTER TABLE businesses DROP COLUMN payout_approval_threshold, DROP COLUMN bulk_payout_approval');
}
