/**
 * A portal session remembers when its user last gave a TOTP code (`authenticated_at`: the
 * sign-in, then each re-authentication, src/businesses/sessions.ts), so that the steps the
 * documents mark `x-reauthentication` can ask for a recent one.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE portal_sessions ADD COLUMN authenticated_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE portal_sessions DROP COLUMN authenticated_at');
}
