/**
 * The payout whitelist (core.yaml tag Whitelist): the customers a business may
 * pay while it enforces the list.
 *
 *   payout_whitelist_entries       one row per (business, customer): adding a customer
 *                                  again finds its row (unique index)
 *   businesses.payout_whitelist_enforced
 *                                  off for every business until it turns it on
 *
 * `payout_receiver` is the receiver lookup of `createPayout` (by `customer_id`,
 * `walletAccountNumber` or `mobileNumber`, the ACTIVE customer first), shared by the
 * whitelist's own additions (src/payouts/whitelist.ts). `payout_create` (011) is
 * kept as `payout_create_open` behind a new `payout_create` that first refuses, while the
 * business enforces its list, an ACTIVE receiver not on it: 422
 * PAYOUT_RECEIVER_NOT_WHITELISTED, decided before any write (so `createPayout` and each
 * bulk item keep one creation path, and a refusal is stored with the idempotency key).
 * Earlier refusals (amount, receiver count, unknown or inactive customer) stay first.
 */
import type { Knex } from 'knex';

const TS = { useTz: true, precision: 3 } as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('businesses', (t) => {
    t.boolean('payout_whitelist_enforced').notNullable().defaultTo(false);
  });
  await knex.schema.createTable('payout_whitelist_entries', (t) => {
    t.uuid('id').primary();
    t.uuid('business_id').notNullable().references('businesses.id');
    t.uuid('customer_id').notNullable().references('customers.id');
    t.timestamp('created_at', TS).notNullable().defaultTo(knex.fn.now(3));
    t.unique(['business_id', 'customer_id']);
    t.index(['business_id', 'created_at', 'id']);
  });
  await knex.raw(`
    -- The customer of business p_business named by request r's one identifier (customer_id,
    -- walletAccountNumber or mobileNumber; the ACTIVE one first, then the newest), or NULL.
    CREATE FUNCTION payout_receiver(p_business uuid, r jsonb) RETURNS customers LANGUAGE sql STABLE AS $$
      SELECT c.* FROM customers c LEFT JOIN accounts a ON a.id = c.wallet_id
       WHERE c.business_id = p_business
         AND CASE WHEN jsonb_exists(r, 'customer_id') THEN c.id = ledger_uuid(r->>'customer_id')
                  WHEN jsonb_exists(r, 'walletAccountNumber') THEN a.account_number = r->>'walletAccountNumber'
                  ELSE c.mobile_number = r->>'mobileNumber' END
       ORDER BY c.status = 'ACTIVE' DESC, c.created_at DESC LIMIT 1
    $$;

    ALTER FUNCTION payout_create(uuid, jsonb) RENAME TO payout_create_open;

    -- createPayout (E4) with the whitelist: see the header of this migration.
    CREATE FUNCTION payout_create(p_business uuid, r jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
    DECLARE
      receiver customers;
    BEGIN
      IF (SELECT payout_whitelist_enforced FROM businesses WHERE id = p_business)
         AND ledger_amount_problem(r->>'payout_amount') IS NULL
         AND (jsonb_exists(r, 'customer_id'))::int + (jsonb_exists(r, 'walletAccountNumber'))::int + (jsonb_exists(r, 'mobileNumber'))::int = 1 THEN
        receiver := payout_receiver(p_business, r);
        IF receiver.status = 'ACTIVE' AND NOT EXISTS (
             SELECT 1 FROM payout_whitelist_entries w WHERE w.business_id = p_business AND w.customer_id = receiver.id) THEN
          RETURN ledger_refusal('PAYOUT_RECEIVER_NOT_WHITELISTED',
            format('The business enforces its payout whitelist and customer %s is not on it.', receiver.id));
        END IF;
      END IF;
      RETURN payout_create_open(p_business, r);
    END $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP FUNCTION payout_create(uuid, jsonb);
    ALTER FUNCTION payout_create_open(uuid, jsonb) RENAME TO payout_create;
    DROP FUNCTION payout_receiver(uuid, jsonb);
  `);
  await knex.schema.dropTable('payout_whitelist_entries');
  await knex.schema.alterTable('businesses', (t) => t.dropColumn('payout_whitelist_enforced'));
}
