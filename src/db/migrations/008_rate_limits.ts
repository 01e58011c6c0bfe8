/**
 * Rate-limit counters shared by every instance (src/http/rateLimit.ts), in the
 * table layout of rate-limiter-flexible's PostgreSQL store (`key`, `points`,
 * `expire` in epoch ms), which the library then uses as it is (`tableCreated`).
 *
 * UNLOGGED: counters are worth nothing after a crash (they restart at zero, as a
 * new window would), and a transaction that writes only unlogged tables does not
 * wait for a WAL flush at commit, so counting a request costs no fsync.
 * Not business data: keys are `client:<client id>` and `addr:<IP address>`; a
 * distributed (Citus) deployment keeps it as a local table of the coordinator.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE UNLOGGED TABLE rate_limits (
      key varchar(255) PRIMARY KEY,
      points integer NOT NULL DEFAULT 0,
      expire bigint
    )
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE rate_limits');
}
