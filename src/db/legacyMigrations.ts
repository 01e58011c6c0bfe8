/**
 * The migrations that the baseline (./migrations/024_baseline.ts) replaced, and the
 * start-up step that moves a database migrated by them onto the baseline.
 *
 * Knex refuses to migrate ("The migration directory is corrupt") when the database
 * records a migration the source does not list. A database migrated before the baseline
 * records the names below; its schema is already the baseline's (the upgrade test,
 * test/platform/database/schemaUpgrade.test.ts, compares the two catalogs), so its record is
 * rewritten to the baseline's name before knex runs, and knex then finds nothing to do.
 * A database that records only some of them was migrated by an older release: it lacks
 * part of the schema and is refused with what to do.
 *
 * The knex CLI (knexfile.ts) does not run this step: start the service once on such a
 * database (or run `connectAndMigrate`) before using the CLI on it.
 */
import type { Knex } from 'knex';

/** The baseline's name in `knex_migrations`. */
export const BASELINE_MIGRATION = '024_baseline';

/**
 * Every migration name a database migrated by the last release before the baseline
 * records, in order. Kept here, in one place, because it is what tells such a database
 * apart (and a partly migrated one), and nothing else may reuse these names. There is no
 * 020: no commit of the history holds one, so no database records it.
 */
export const LEGACY_MIGRATIONS: readonly string[] = [
  '001_initial',
  '002_ledger_posting',
  '003_ledger_movements',
  '004_customers',
  '005_identity',
  '006_mobile_number_change',
  '007_ledger_idempotency',
  '008_rate_limits',
  '009_webhook_deliveries',
  '010_cards',
  '011_payouts',
  '012_card_steps',
  '013_card_purchases',
  '014_payout_whitelist',
  '015_bulk_payouts',
  '016_idempotency_release_race',
  '017_ledger_direct_movements',
  '018_ledger_keyed_direct',
  '019_sql_definitions',
  '021_sealed_webhook_secrets_and_pin_tries',
  '022_outbox_pending',
  '023_bulk_payout_counts',
];

/** Thrown when a database records only some of LEGACY_MIGRATIONS (or them beside other names): it is not started. */
export class LegacySchemaError extends Error {
  override name = 'LegacySchemaError';
}

/**
 * Rewrites `db`'s migration record from LEGACY_MIGRATIONS to BASELINE_MIGRATION when it
 * holds exactly those names: one transaction, which first locks `knex_migrations`
 * (EXCLUSIVE: a second instance doing the same waits, then reads the record again and
 * finds the baseline). The baseline's row keeps batch 1 and the time the last legacy
 * migration ran (when the schema became what the baseline creates). Returns true when
 * it rewrote the record; false for a database without a record yet or without legacy
 * names. Throws LegacySchemaError when the record holds some legacy names but not
 * exactly all of them, naming the release to start first; nothing is changed then.
 */
export async function reconcileLegacyMigrations(db: Knex): Promise<boolean> {
  const { rows } = await db.raw("SELECT to_regclass('knex_migrations') IS NOT NULL AS found");
  if (!rows[0].found) return false;
  return db.transaction(async (trx) => {
    await trx.raw('LOCK TABLE knex_migrations IN EXCLUSIVE MODE');
    const recorded = (await trx('knex_migrations').orderBy('id').pluck('name')) as string[];
    const legacy = new Set(LEGACY_MIGRATIONS);
    const found = recorded.filter((name) => legacy.has(name));
    if (!found.length) return false;
    const missing = LEGACY_MIGRATIONS.filter((name) => !recorded.includes(name));
    const others = recorded.filter((name) => !legacy.has(name));
    if (missing.length) {
      throw new LegacySchemaError(
        `The database was migrated by a release older than this one's schema baseline: it records ${found.length} of the ` +
          `${LEGACY_MIGRATIONS.length} migrations ${LEGACY_MIGRATIONS[0]}…${LEGACY_MIGRATIONS.at(-1)} (missing: ${missing.join(', ')}). ` +
          `Start the previous release (the last one with those migrations in src/db/migrations/) against it once, so that it ` +
          `applies them, then start this release.`,
      );
    }
    if (others.length) {
      throw new LegacySchemaError(
        `The database records the migrations ${LEGACY_MIGRATIONS[0]}…${LEGACY_MIGRATIONS.at(-1)} together with ${others.join(', ')}: ` +
          `a record no release writes. Check knex_migrations by hand.`,
      );
    }
    const [{ ran }] = (await trx('knex_migrations').max({ ran: 'migration_time' })) as { ran: Date }[];
    await trx('knex_migrations').whereIn('name', LEGACY_MIGRATIONS as string[]).delete();
    await trx('knex_migrations').insert({ name: BASELINE_MIGRATION, batch: 1, migration_time: ran });
    return true;
  });
}
