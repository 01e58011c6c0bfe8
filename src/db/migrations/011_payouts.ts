/**
 * Payouts to customers (core API, issue 8, seed E4): the business's payout
 * account and in-transit account, the `payouts` table and the payout movements
 * of the ledger, each one PL/pgSQL statement as the closed loop's (003):
 *
 *   PAYOUT_ACCOUNT_TOPUP  settlement → payout account (sandbox helper; type TOPUP)
 *   CUSTOMER_PAYOUT       payout account → in-transit, the payout row (PENDING)
 *                         and its `payout.pending` event (createPayout, E4)
 * and `payout_move` for the later steps (PENDING → PROCESSING, no money;
 * PROCESSING → COMPLETED: in-transit → the customer's wallet, type
 * CUSTOMER_PAYOUT_COMPLETION; PROCESSING → FAILED: in-transit → payout account,
 * type CUSTOMER_PAYOUT_RETURN), each with its `payout.*` event in the outbox.
 * The allowed moves are src/payouts/states.ts's table, passed in by the caller.
 *
 * Money is always in exactly one place: on the payout account, in transit, or
 * on the wallet. Refusals are `ledger_refusal` values, decided before any write.
 * Account prefixes: 2 payout account, 7 in-transit account (accountNumbers.ts).
 */
import type { Knex } from 'knex';

const TS = { useTz: true, precision: 3 } as const;
const KINDS = `'OPERATIONAL', 'SETTLEMENT', 'WALLET', 'PAYOUT', 'IN_TRANSIT'`;
const TYPES = `'TOPUP', 'FUND', 'PAYOUT', 'TRANSFER', 'WITHDRAWAL', 'REFUND', 'REVERSAL',
  'CUSTOMER_PAYOUT', 'CUSTOMER_PAYOUT_COMPLETION', 'CUSTOMER_PAYOUT_RETURN'`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE accounts DROP CONSTRAINT accounts_kind_check, ADD CONSTRAINT accounts_kind_check CHECK (kind IN (${KINDS}));
    DROP INDEX accounts_one_operational_per_business;
    CREATE UNIQUE INDEX accounts_one_business_account_per_kind ON accounts (business_id, kind) WHERE kind <> 'WALLET';
    ALTER TABLE transactions DROP CONSTRAINT transactions_type_check, ADD CONSTRAINT transactions_type_check CHECK (type IN (${TYPES}));

    -- The next account number with prefix p_prefix (accountNumbers.ts: prefix, 10-digit serial, Luhn digit).
    CREATE FUNCTION account_number_next(p_prefix text) RETURNS text LANGUAGE plpgsql AS $$
    DECLARE
      body text := p_prefix || lpad(nextval('account_number_seq')::text, 10, '0');
      total int := 0;
      d int;
    BEGIN
      FOR i IN 0..length(body) - 1 LOOP
        d := substr(body, length(body) - i, 1)::int;
        IF i % 2 = 0 THEN
          d := d * 2;
          IF d > 9 THEN d := d - 9; END IF;
        END IF;
        total := total + d;
      END LOOP;
      RETURN body || ((10 - total % 10) % 10)::text;
    END $$;

    INSERT INTO accounts (id, business_id, kind, account_number, currency)
    SELECT gen_random_uuid(), b.id, k.kind, account_number_next(k.prefix), b.currency
      FROM businesses b CROSS JOIN (VALUES ('PAYOUT', '2'), ('IN_TRANSIT', '7')) AS k(kind, prefix)
     ORDER BY b.created_at, k.prefix;
  `);

  await knex.schema.createTable('payouts', (t) => {
    t.uuid('id').primary();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.uuid('customer_id').notNullable().references('customers.id');
    t.uuid('wallet_id').notNullable().references('accounts.id');
    t.decimal('amount', 20, 2).notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.text('status').notNullable().checkIn(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED']);
    t.text('purpose');
    t.text('external_reference');
    t.text('failure_code');
    t.uuid('creation_transaction_id').notNullable().unique().references('transactions.id');
    t.uuid('outcome_transaction_id').unique().references('transactions.id');
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.index(['business_id', 'created_at', 'id']);
    t.index(['business_id', 'status']);
  });
  await knex.raw(`ALTER TABLE payouts ADD CONSTRAINT payouts_amount_positive CHECK (amount > 0)`);

  await knex.raw(`
    -- ledger_refusal (002) with the payout codes' statuses.
    CREATE OR REPLACE FUNCTION ledger_refusal(p_code text, p_detail text, p_pointer text DEFAULT NULL) RETURNS jsonb
    LANGUAGE sql IMMUTABLE AS $$
      SELECT jsonb_build_object('refusal', jsonb_build_object(
        'code', p_code,
        'status', CASE
          WHEN p_code = 'VALIDATION_ERROR' THEN 400
          WHEN p_code IN ('WALLET_NOT_FOUND', 'BUSINESS_NOT_FOUND', 'TRANSACTION_NOT_FOUND', 'CUSTOMER_NOT_FOUND', 'PAYOUT_NOT_FOUND') THEN 404
          WHEN p_code IN ('TRANSACTION_ALREADY_REVERSED', 'CUSTOMER_NOT_ACTIVE', 'PAYOUT_STATUS_NOT_ALLOWED') THEN 409
          ELSE 422 END,
        'detail', p_detail,
        'pointer', p_pointer))
    $$;

    -- The business's account of kind p_kind (a business account: one per kind).
    CREATE FUNCTION business_account(p_business uuid, p_kind text) RETURNS uuid LANGUAGE sql STABLE AS $$
      SELECT id FROM accounts WHERE business_id = p_business AND kind = p_kind
    $$;

    -- The payout as its events show it (shared.yaml PayoutEventData), at step transaction p_reference.
    CREATE FUNCTION payout_event_data(p payouts, p_reference text) RETURNS jsonb LANGUAGE sql STABLE AS $$
      SELECT jsonb_build_object(
        'payout_id', p.id, 'transaction_id', p_reference, 'status', p.status, 'amount', p.amount::text,
        'currency', p.currency, 'customer_id', p.customer_id,
        'wallet_account_number', (SELECT account_number FROM accounts WHERE id = p.wallet_id),
        'external_reference', p.external_reference, 'failure_code', p.failure_code,
        'occurred_at', to_char(p.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
    $$;

    -- Writes the payout's event payout.<status> to the outbox (at the clock's time, so that two
    -- steps in one transaction, as the sandbox helper makes them, are listed in their order).
    CREATE FUNCTION payout_event(p payouts, p_reference text) RETURNS void LANGUAGE sql AS $$
      INSERT INTO outbox_events (id, business_id, code, data, created_at)
      VALUES (gen_random_uuid(), p.business_id, 'payout.' || lower(p.status), payout_event_data(p, p_reference), clock_timestamp())
    $$;

    -- createPayout (E4): see the header of this migration. Request: the E4 body.
    CREATE FUNCTION payout_create(p_business uuid, r jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
    DECLARE
      problem text := ledger_amount_problem(r->>'payout_amount');
      given int := (jsonb_exists(r, 'customer_id'))::int + (jsonb_exists(r, 'walletAccountNumber'))::int + (jsonb_exists(r, 'mobileNumber'))::int;
      receiver customers;
      wallet accounts;
      locked record;
      posting jsonb;
      p payouts;
    BEGIN
      IF problem IS NOT NULL THEN
        RETURN ledger_refusal('VALIDATION_ERROR', problem, '/payout_amount');
      END IF;
      IF given <> 1 THEN
        RETURN ledger_refusal('VALIDATION_ERROR',
          format('exactly one of customer_id, walletAccountNumber and mobileNumber must be present (%s given)', given), '/customer_id');
      END IF;
      -- The receiver: by id, by wallet account number, or by mobile number (the ACTIVE one first).
      SELECT c.* INTO receiver FROM customers c LEFT JOIN accounts a ON a.id = c.wallet_id
       WHERE c.business_id = p_business
         AND CASE WHEN jsonb_exists(r, 'customer_id') THEN c.id = ledger_uuid(r->>'customer_id')
                  WHEN jsonb_exists(r, 'walletAccountNumber') THEN a.account_number = r->>'walletAccountNumber'
                  ELSE c.mobile_number = r->>'mobileNumber' END
       ORDER BY c.status = 'ACTIVE' DESC, c.created_at DESC LIMIT 1;
      IF receiver.id IS NULL THEN
        RETURN ledger_refusal('CUSTOMER_NOT_FOUND', format('No customer with %s %s for this business.',
          CASE WHEN jsonb_exists(r, 'customer_id') THEN 'id' WHEN jsonb_exists(r, 'walletAccountNumber') THEN 'wallet account number' ELSE 'mobile number' END,
          coalesce(r->>'customer_id', r->>'walletAccountNumber', r->>'mobileNumber')));
      END IF;
      IF receiver.status <> 'ACTIVE' OR receiver.wallet_id IS NULL THEN
        RETURN ledger_refusal('CUSTOMER_NOT_ACTIVE', format('Customer %s is %s; payouts go to ACTIVE customers only.', receiver.id, receiver.status));
      END IF;
      locked := ledger_lock_pair(p_business, business_account(p_business, 'PAYOUT'), business_account(p_business, 'IN_TRANSIT'));
      SELECT * INTO wallet FROM accounts WHERE id = receiver.wallet_id;
      posting := ledger_post(p_business, 'CUSTOMER_PAYOUT', locked.a, locked.b, round((r->>'payout_amount')::numeric, 2),
                             wallet.currency, r->>'external_reference', r->>'payout_purpose');
      IF posting->'refusal' IS NOT NULL THEN
        RETURN posting;
      END IF;
      INSERT INTO payouts (id, business_id, customer_id, wallet_id, amount, currency, status, purpose, external_reference,
                           creation_transaction_id, created_at, updated_at)
      VALUES (gen_random_uuid(), p_business, receiver.id, wallet.id, (posting->>'amount')::numeric, posting->>'currency', 'PENDING',
              r->>'payout_purpose', r->>'external_reference', (posting->>'id')::uuid,
              (posting->>'created_at')::timestamptz, (posting->>'created_at')::timestamptz)
      RETURNING * INTO p;
      PERFORM payout_event(p, posting->>'reference');
      RETURN posting || jsonb_build_object('payout', jsonb_build_object('id', p.id, 'created_at', p.created_at));
    END $$;

    -- Moves payout p_payout of business p_business from one of p_from to p_to (the
    -- caller's state table), with failure code p_failure_code for FAILED: one balanced
    -- ledger transaction for an outcome, the payout.<status> event, in the caller's
    -- transaction. A completion whose customer or wallet is no longer ACTIVE fails
    -- instead (RECEIVER_NOT_ACTIVE). Returns {payout: {id, status}} or the refusal
    -- PAYOUT_NOT_FOUND / PAYOUT_STATUS_NOT_ALLOWED (nothing changed).
    CREATE FUNCTION payout_move(p_business uuid, p_payout uuid, p_from text[], p_to text, p_failure_code text DEFAULT NULL)
    RETURNS jsonb LANGUAGE plpgsql AS $$
    DECLARE
      p payouts;
      target text := p_to;
      code text := p_failure_code;
      locked record;
      posting jsonb;
      reference text;
    BEGIN
      SELECT * INTO p FROM payouts WHERE id = p_payout AND business_id = p_business FOR UPDATE;
      IF p.id IS NULL THEN
        RETURN ledger_refusal('PAYOUT_NOT_FOUND', format('No payout %s for this business.', p_payout));
      END IF;
      IF NOT p.status = ANY(p_from) THEN
        RETURN ledger_refusal('PAYOUT_STATUS_NOT_ALLOWED', format('The payout is %s; it cannot become %s.', p.status, p_to));
      END IF;
      IF target = 'COMPLETED' AND EXISTS (
           SELECT 1 FROM customers c JOIN accounts a ON a.id = p.wallet_id
            WHERE c.id = p.customer_id AND (c.status <> 'ACTIVE' OR a.status <> 'ACTIVE')) THEN
        target := 'FAILED';
        code := 'RECEIVER_NOT_ACTIVE';
      END IF;
      IF target = 'PROCESSING' THEN
        reference := (SELECT t.reference FROM transactions t WHERE t.id = p.creation_transaction_id);
      ELSE
        IF target = 'COMPLETED' THEN
          locked := ledger_lock_pair(p_business, business_account(p_business, 'IN_TRANSIT'), p.wallet_id);
          posting := ledger_post(p_business, 'CUSTOMER_PAYOUT_COMPLETION', locked.a, locked.b, p.amount, p.currency,
                                 p.external_reference, p.purpose, p.creation_transaction_id);
        ELSE
          locked := ledger_lock_pair(p_business, business_account(p_business, 'IN_TRANSIT'), business_account(p_business, 'PAYOUT'));
          posting := ledger_post(p_business, 'CUSTOMER_PAYOUT_RETURN', locked.a, locked.b, p.amount, p.currency,
                                 p.external_reference, p.purpose, p.creation_transaction_id);
        END IF;
        IF posting->'refusal' IS NOT NULL THEN
          RAISE EXCEPTION 'payout_move: the ledger refused step % of payout %: %', target, p.id, posting->'refusal';
        END IF;
        reference := posting->>'reference';
      END IF;
      UPDATE payouts SET status = target, failure_code = CASE WHEN target = 'FAILED' THEN code END,
                         outcome_transaction_id = (posting->>'id')::uuid, updated_at = clock_timestamp()
       WHERE id = p.id RETURNING * INTO p;
      PERFORM payout_event(p, reference);
      RETURN jsonb_build_object('payout', jsonb_build_object('id', p.id, 'status', p.status));
    END $$;

    ALTER FUNCTION ledger_move(uuid, text, jsonb) RENAME TO ledger_move_closed_loop;

    -- One movement of money of business p_business: the payout movements here, the
    -- closed loop's in ledger_move_closed_loop (003).
    CREATE FUNCTION ledger_move(p_business uuid, p_type text, r jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
    DECLARE
      problem text;
      locked record;
      payout_account accounts;
    BEGIN
      CASE p_type
      WHEN 'CUSTOMER_PAYOUT' THEN
        RETURN payout_create(p_business, r);
      WHEN 'PAYOUT_ACCOUNT_TOPUP' THEN
        problem := ledger_amount_problem(r->>'amount');
        IF problem IS NOT NULL THEN
          RETURN ledger_refusal('VALIDATION_ERROR', problem, '/amount');
        END IF;
        locked := ledger_lock_pair(p_business, business_account(p_business, 'SETTLEMENT'), business_account(p_business, 'PAYOUT'));
        payout_account := locked.b;
        RETURN ledger_post(p_business, 'TOPUP', locked.a, payout_account, round((r->>'amount')::numeric, 2), payout_account.currency);
      ELSE
        RETURN ledger_move_closed_loop(p_business, p_type, r);
      END CASE;
    END $$;

    -- ledger_posting_of (007) with the payout of a CUSTOMER_PAYOUT, for replays of createPayout.
    ALTER FUNCTION ledger_posting_of(uuid) RENAME TO ledger_posting_of_transaction;
    CREATE FUNCTION ledger_posting_of(p_id uuid) RETURNS jsonb LANGUAGE sql STABLE AS $$
      SELECT ledger_posting_of_transaction(p_id) || coalesce(
        (SELECT jsonb_build_object('payout', jsonb_build_object('id', p.id, 'created_at', p.created_at))
           FROM payouts p WHERE p.creation_transaction_id = p_id), '{}'::jsonb)
    $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP FUNCTION ledger_posting_of(uuid);
    ALTER FUNCTION ledger_posting_of_transaction(uuid) RENAME TO ledger_posting_of;
    DROP FUNCTION ledger_move(uuid, text, jsonb);
    ALTER FUNCTION ledger_move_closed_loop(uuid, text, jsonb) RENAME TO ledger_move;
    DROP FUNCTION payout_move(uuid, uuid, text[], text, text);
    DROP FUNCTION payout_create(uuid, jsonb);
    DROP FUNCTION payout_event(payouts, text);
    DROP FUNCTION payout_event_data(payouts, text);
    DROP FUNCTION business_account(uuid, text);
  `);
  await knex.schema.dropTable('payouts');
  await knex.raw(`
    DELETE FROM accounts WHERE kind IN ('PAYOUT', 'IN_TRANSIT');
    DROP FUNCTION account_number_next(text);
    DROP INDEX accounts_one_business_account_per_kind;
    CREATE UNIQUE INDEX accounts_one_operational_per_business ON accounts (business_id, kind) WHERE kind IN ('OPERATIONAL', 'SETTLEMENT');
  `);
}
