/**
 * Knex connection and migrations. Migrations are listed in code (not loaded
 * from a folder) so that they run the same under tsx, mocha and the knex CLI.
 */
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { followPrimary } from './failover.js';
import { RETRY_EVENT, retryTransactions, withConflictRetries } from './retry.js';
import * as baseline from './migrations/024_baseline.js';
import * as businessKeys from './migrations/025_business_keys.js';
import * as ledgerReadsByTime from './migrations/026_ledger_reads_by_time.js';
import * as webhookOperations from './migrations/027_webhook_operations.js';
import * as ledgerEntriesByBusiness from './migrations/028_ledger_entries_by_business.js';
import * as accountLastEntryTime from './migrations/029_account_last_entry_time.js';
import * as ledgerOrderByAccount from './migrations/030_ledger_order_by_account.js';
import * as payoutSettings from './migrations/031_payout_settings.js';
import * as jobOutbox from './migrations/032_job_outbox.js';
import * as webhookSecretsSealedOnly from './migrations/033_webhook_secrets_sealed_only.js';
import * as bulkPayoutsByTime from './migrations/034_bulk_payouts_by_time.js';
import * as walletsByExternalReference from './migrations/035_wallets_by_external_reference.js';
import * as listFiltersInPageOrder from './migrations/036_list_filters_in_page_order.js';
import * as apiVersions from './migrations/037_api_versions.js';
import * as eventDataVersions from './migrations/038_event_data_versions.js';
import * as nationalIdKeyVersions from './migrations/039_national_id_key_versions.js';
import * as apiKeys from './migrations/040_api_keys.js';
import * as auditLog from './migrations/041_audit_log.js';
import * as portalUsers from './migrations/042_portal_users.js';
import * as sessionAuthenticationTime from './migrations/043_session_authentication_time.js';
import * as apiRequestLog from './migrations/044_api_request_log.js';
import * as businessSettings from './migrations/045_business_settings.js';
import * as searchIndexes from './migrations/046_search_indexes.js';
import * as eventObjectIndex from './migrations/047_event_object_index.js';
import * as webhookAttemptDetails from './migrations/048_webhook_attempt_details.js';
import * as payoutApprovals from './migrations/049_payout_approvals.js';
import { BASELINE_MIGRATION, reconcileLegacyMigrations } from './legacyMigrations.js';
import { applySqlDefinitions } from './sqlFunctions.js';
import { DB_POOL_IDLE_MS, DEFAULT_DB_POOL_SIZE } from './pool.js';

// numeric → string (exact money), int8 → string: never a JS number for money.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v: string) => v);

/**
 * The migrations, in order. The first is the baseline (the schema as 001–023 left it,
 * DDL only; ./legacyMigrations.ts moves databases migrated by those onto it); a new
 * migration is added after it, numbered from 025.
 */
const MIGRATIONS: Record<string, Knex.Migration> = {
  [BASELINE_MIGRATION]: baseline,
  '025_business_keys': businessKeys,
  '026_ledger_reads_by_time': ledgerReadsByTime,
  '027_webhook_operations': webhookOperations,
  '028_ledger_entries_by_business': ledgerEntriesByBusiness,
  '029_account_last_entry_time': accountLastEntryTime,
  '030_ledger_order_by_account': ledgerOrderByAccount,
  '031_payout_settings': payoutSettings,
  '032_job_outbox': jobOutbox,
  '033_webhook_secrets_sealed_only': webhookSecretsSealedOnly,
  '034_bulk_payouts_by_time': bulkPayoutsByTime,
  '035_wallets_by_external_reference': walletsByExternalReference,
  '036_list_filters_in_page_order': listFiltersInPageOrder,
  '037_api_versions': apiVersions,
  '038_event_data_versions': eventDataVersions,
  '039_national_id_key_versions': nationalIdKeyVersions,
  '040_api_keys': apiKeys,
  '041_audit_log': auditLog,
  '042_portal_users': portalUsers,
  '043_session_authentication_time': sessionAuthenticationTime,
  '044_api_request_log': apiRequestLog,
  '045_business_settings': businessSettings,
  '046_search_indexes': searchIndexes,
  '047_event_object_index': eventObjectIndex,
  '048_webhook_attempt_details': webhookAttemptDetails,
  '049_payout_approvals': payoutApprovals,
};

/** Migration source for `knex.migrate` with the migrations above. */
export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(MIGRATIONS),
  getMigrationName: (name) => name,
  getMigration: async (name) => MIGRATIONS[name],
};

/** How the service talks to PostgreSQL (DB_POOL_SIZE, DB_PREPARED_STATEMENTS; src/config.ts). */
export interface ConnectionOptions {
  /** Most connections in the pool (default DEFAULT_DB_POOL_SIZE). */
  poolSize?: number;
  /**
   * False: every statement is sent unnamed (PostgreSQL's unnamed prepared statement),
   * also those a library names (Knex's `options({ name })`, rate-limiter-flexible's
   * store). Needed behind a pooler in transaction mode that does not follow named
   * prepared statements from one server connection to the next (pgbouncer before
   * 1.21, or with `max_prepared_statements = 0`). Default true.
   */
  preparedStatements?: boolean;
  /** The sessions' `application_name` (what `pg_stat_activity` shows; default none). */
  applicationName?: string;
  /** Called with each new connection once it is open, before its first use (e.g. ./priority.ts). */
  afterConnect?: (connection: pg.Client) => void;
}

/**
 * Makes `connection` send every statement unnamed: the name of a query config is
 * dropped, so PostgreSQL parses the statement again each time (a small cost on the
 * hottest statements) and no server connection needs to know it beforehand.
 */
function sendUnnamed(connection: pg.Client): void {
  const query = connection.query.bind(connection) as (...args: unknown[]) => unknown;
  (connection as unknown as { query: (...args: unknown[]) => unknown }).query = (config: unknown, ...rest: unknown[]) => {
    const named = config && typeof config === 'object' && typeof (config as { submit?: unknown }).submit !== 'function' && (config as { name?: unknown }).name;
    return query(named ? { ...(config as object), name: undefined } : config, ...rest);
  };
}

/** Knex configuration for a PostgreSQL connection string (see ConnectionOptions); its pool follows the primary across a failover (./failover.ts). */
export function knexConfig(connectionString: string, opts: ConnectionOptions = {}): Knex.Config {
  const unnamed = opts.preparedStatements === false;
  const { afterConnect } = opts;
  const primary = followPrimary();
  return {
    client: 'pg',
    connection: opts.applicationName ? { connectionString, application_name: opts.applicationName } : connectionString,
    pool: {
      min: 0,
      max: opts.poolSize ?? DEFAULT_DB_POOL_SIZE,
      idleTimeoutMillis: DB_POOL_IDLE_MS,
      afterCreate(connection: pg.Client, done: (err: Error | null, connection: pg.Client) => void) {
        if (unnamed) sendUnnamed(connection);
        primary.afterCreate(connection);
        afterConnect?.(connection);
        done(null, connection);
      },
      // A connection opened before a failover-class error is not handed out again (./failover.ts).
      validate: primary.validate,
    },
    // knex would print each failed connection attempt to the console; every such error
    // also fails its request, which the service logs (one line per outage, see
    // db/unavailable.ts), so knex's own console output is switched off.
    log: { warn() {}, error() {}, deprecate() {}, debug() {} },
    migrations: { migrationSource },
  };
}

/** True when the database has exactly the migrations above applied (one query). */
async function upToDate(db: Knex): Promise<boolean> {
  try {
    const { rows } = await db.raw('SELECT name FROM knex_migrations');
    const applied = new Set(rows.map((r: { name: string }) => r.name));
    return applied.size === Object.keys(MIGRATIONS).length && Object.keys(MIGRATIONS).every((name) => applied.has(name));
  } catch {
    return false; // no migrations table yet
  }
}

/**
 * Key of the transaction-scoped advisory lock under which migrations run. Knex's own
 * migration lock refuses a second migrator at once ("Migration table is already
 * locked") and its lock table is created check-then-create, so instances started
 * together on an empty database would fail; this lock makes them wait in turn, and
 * each one after the first finds the migrations applied. Transaction-scoped, so that it
 * also works through a pooler in transaction mode.
 */
const MIGRATION_LOCK = 'wallet-service:migrations';

/**
 * Applies pending migrations, one instance at a time (see MIGRATION_LOCK). A database
 * migrated before the baseline has its record moved onto it first
 * (./legacyMigrations.ts; throws LegacySchemaError for one migrated by an older release).
 */
async function migrate(db: Knex, connectionString: string): Promise<void> {
  const lock = new pg.Client({ connectionString, application_name: 'wallet-service-migrations' });
  lock.on('error', () => undefined); // a lost connection fails the query in flight, which is what reports it
  await lock.connect();
  try {
    await lock.query('BEGIN');
    await lock.query('SELECT pg_advisory_xact_lock(hashtext($1))', [MIGRATION_LOCK]);
    await reconcileLegacyMigrations(db);
    if (!(await upToDate(db))) await db.migrate.latest();
    await lock.query('COMMIT');
  } finally {
    await lock.end().catch(() => undefined);
  }
}

/**
 * A pool to `connectionString` (see ConnectionOptions) whose transactions retry conflicts
 * (db/retry.ts) and know their pool (db/committed.ts); connections open on first use.
 */
export function openPool(connectionString: string, opts: ConnectionOptions = {}): Knex {
  return retryTransactions(knexFactory(knexConfig(connectionString, opts)));
}

/**
 * Opens a pool to `connectionString` (see ConnectionOptions) whose transactions retry
 * conflicts (db/retry.ts), applies pending migrations (under an advisory lock, so
 * that any number of instances may start at once; a restart skips it), then the SQL
 * definitions whose files changed (./sqlFunctions.ts: functions and triggers, which
 * may use anything the migrations create; under a lock of their own, one query when
 * none changed). Throws what they throw (e.g. LegacySchemaError, ./legacyMigrations.ts),
 * after closing the pool.
 */
export async function connectAndMigrate(connectionString: string, opts: ConnectionOptions = {}): Promise<Knex> {
  const db = openPool(connectionString, opts);
  try {
    if (!(await upToDate(db))) await migrate(db, connectionString);
    await applySqlDefinitions(db);
  } catch (err) {
    // A start that fails leaves no pool behind (its connections would outlive the failure).
    await db.destroy().catch(() => undefined);
    throw err;
  }
  return db;
}

/** A parameterised statement run as a named prepared statement (see `preparedQuery`). */
export interface PreparedStatement {
  /** The prepared statement's name: one per distinct text. */
  name: string;
  /** The SQL with Knex's `?` placeholders (for `db.raw` inside a transaction). */
  text: string;
  /** The same SQL with PostgreSQL's `$1 … $n` (for the pg client). */
  pgText: string;
}

/** The statement `name` of `text` (SQL with Knex's `?` placeholders), numbered once for pg. */
export function preparedStatement(name: string, text: string): PreparedStatement {
  let n = 0;
  return { name, text, pgText: text.replace(/\?/g, () => `$${++n}`) };
}

/**
 * Runs `statement` with `values` on `db` as a named prepared statement (unnamed with
 * DB_PREPARED_STATEMENTS=false, see knexConfig) and returns its rows. On the pool
 * itself, the pg client is taken from Knex's pool and queried directly, which skips
 * Knex's query builder and runner: on the hottest path (one money movement per
 * request) that was a measurable share of the service's CPU; the statement is then a
 * transaction of its own, retried on a conflict (db/retry.ts). Inside a transaction it
 * runs through `db.raw` on the transaction's own connection. Throws what `db.raw`
 * throws: pg's errors, or Knex's pool timeout.
 */
export async function preparedQuery<Row>(db: Knex, statement: PreparedStatement, values: unknown[]): Promise<Row[]> {
  if (db.isTransaction) {
    const { rows } = await db.raw(statement.text, values as Knex.RawBinding[]).options({ name: statement.name });
    return rows as Row[];
  }
  const client = db.client as { acquireConnection(): Promise<pg.Client>; releaseConnection(connection: pg.Client): Promise<void> };
  return withConflictRetries(
    async () => {
      const connection = await client.acquireConnection();
      try {
        const { rows } = await connection.query({ name: statement.name, text: statement.pgText, values });
        return rows as Row[];
      } finally {
        await client.releaseConnection(connection);
      }
    },
    (code) => db.emit(RETRY_EVENT, { code }),
  );
}
