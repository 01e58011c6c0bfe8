/**
 * A business's API clients become API keys (src/businesses/clients.ts): a name, what they
 * may do (a role or a list of permissions, src/kernel/permissions.ts), a previous secret
 * that keeps working until its end after a roll, when the key last took a token, and when it
 * was revoked. The clients there are keep every permission: they get the role `owner`.
 * `api_clients` stays a reference table (src/db/tableClasses.ts); every key of a business
 * carries its `business_id`, and its keys are listed by (business_id, created_at, id).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE api_clients
      ADD COLUMN name text,
      ADD COLUMN role text DEFAULT 'owner',
      ADD COLUMN permissions text[],
      ADD COLUMN previous_secret_hash text,
      ADD COLUMN previous_secret_expires_at timestamp(3) with time zone,
      ADD COLUMN last_used_at timestamp(3) with time zone,
      ADD COLUMN updated_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      ADD COLUMN revoked_at timestamp(3) with time zone;
    ALTER TABLE api_clients ALTER COLUMN role DROP DEFAULT;
    ALTER TABLE api_clients ADD CONSTRAINT api_clients_grant_check CHECK ((role IS NULL) <> (permissions IS NULL));
    CREATE INDEX api_clients_business_id_created_at_id_index ON api_clients (business_id, created_at, id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX api_clients_business_id_created_at_id_index;
    ALTER TABLE api_clients
      DROP CONSTRAINT api_clients_grant_check,
      DROP COLUMN name, DROP COLUMN role, DROP COLUMN permissions, DROP COLUMN previous_secret_hash,
      DROP COLUMN previous_secret_expires_at, DROP COLUMN last_used_at, DROP COLUMN updated_at, DROP COLUMN revoked_at;
  `);
}
