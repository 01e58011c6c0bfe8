/**
 * The schema distributed by business on Citus (docs/scale-out.md): which table is placed
 * how, and the one routine that places them, `distribute` (`npm run db:distribute`), which
 * the SQL definitions' applier also calls for the functions it re-creates
 * (src/db/sqlFunctions.ts), so that a start on a distributed database keeps the distribution.
 *
 * Table classes (./tableClasses.ts; every table not named there is a tenant table):
 *   - tenant: distributed by `business_id`, all in one colocation group (`labels`'s), so
 *     that a business's rows of every table live on one node;
 *   - reference: a copy on every node (`create_reference_table`);
 *   - directory: distributed by its own unique value, colocated with nothing;
 *   - coordinator: left a local table of the coordinator (and the job queue's schema).
 *
 * Functions: those that take the business first (`p_business uuid`) are delegated to the
 * node of that business's shard (`create_distributed_function` with the argument, colocated
 * with the tenant tables, `force_delegation` so that a call inside a transaction block is
 * delegated too); every other function of the schema is propagated to every node, in the
 * applier's dependency order (a function reaches a worker after those it calls).
 *
 * Nothing here runs on a database without Citus: `citusDistributed` is false there.
 */
import type pg from 'pg';
import { COLOCATION_ANCHOR, COORDINATOR_TABLES, DIRECTORY_KEYS, DIRECTORY_TABLES, REFERENCE_TABLES, tenantTables } from './tableClasses.js';

export { COLOCATION_ANCHOR, COORDINATOR_TABLES, DIRECTORY_TABLES, REFERENCE_TABLES, tenantTables } from './tableClasses.js';

/** Shards per distributed table at the first distribution, unless the caller gives another count. */
export const DEFAULT_SHARD_COUNT = 32;

type Connection = Pick<pg.Client, 'query'>;

async function rows<T>(connection: Connection, text: string, values: unknown[] = []): Promise<T[]> {
  return (await connection.query(text, values)).rows as T[];
}

/** True when the database has the Citus extension and its tenant tables are distributed. */
export async function citusDistributed(connection: Connection): Promise<boolean> {
  // Citus's catalog exists only with the extension: asked about only then.
  if (!(await rows(connection, `SELECT 1 FROM pg_extension WHERE extname = 'citus'`)).length) return false;
  return (await rows(connection, `SELECT 1 FROM pg_dist_partition WHERE logicalrelid = to_regclass('accounts')`)).length > 0;
}

/** The tables of the service's schema. */
async function schemaTables(connection: Connection): Promise<string[]> {
  const found = await rows<{ name: string }>(
    connection,
    `SELECT c.relname AS name FROM pg_class c
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') ORDER BY 1`,
  );
  return found.map((r) => r.name);
}

/** How Citus has placed each table now: `h` distributed, `n` reference or Citus-local; absent: not in Citus's metadata. */
async function placements(connection: Connection): Promise<Map<string, { method: string; column: string | null; replication: string; colocation: number }>> {
  const found = await rows<{ name: string; method: string; column: string | null; replication: string; colocation: number }>(
    connection,
    `SELECT p.logicalrelid::regclass::text AS name, p.partmethod AS method,
            CASE WHEN p.partkey IS NULL THEN NULL ELSE column_to_column_name(p.logicalrelid, p.partkey) END AS column,
            p.repmodel AS replication, p.colocationid AS colocation
       FROM pg_dist_partition p`,
  );
  return new Map(found.map((r) => [r.name, r]));
}

interface ForeignKey {
  name: string;
  table: string;
  references: string;
  definition: string;
}

/** The foreign keys between tenant tables. */
async function tenantForeignKeys(connection: Connection, tenants: string[]): Promise<ForeignKey[]> {
  return rows<ForeignKey>(
    connection,
    `SELECT f.conname AS name, c.relname AS table, r.relname AS references, pg_get_constraintdef(f.oid) AS definition
       FROM pg_constraint f JOIN pg_class c ON c.oid = f.conrelid JOIN pg_class r ON r.oid = f.confrelid
      WHERE f.contype = 'f' AND c.relnamespace = current_schema()::regnamespace
        AND c.relname = ANY($1) AND r.relname = ANY($1) AND c.relname <> r.relname
      ORDER BY 1`,
    [tenants],
  );
}

/**
 * The functions of the schema in the order they may reach the workers: `order`, the SQL
 * definitions' function names in the applier's dependency order; any other function of
 * the schema (none, when the schema is exactly the files') after them. `delegated`: the
 * function takes the business first (`p_business uuid`), so a call runs on its business's
 * node (test/platform/database/cacheableStatements.test.ts reads it too).
 */
export async function schemaFunctions(connection: Connection, order: string[]): Promise<{ signature: string; name: string; delegated: boolean }[]> {
  const found = await rows<{ signature: string; name: string; delegated: boolean }>(
    connection,
    `SELECT p.oid::regprocedure::text AS signature, p.proname AS name,
            coalesce(p.proargnames[1] = 'p_business' AND p.proargtypes[0] = 'uuid'::regtype, false) AS delegated
       FROM pg_proc p
      WHERE p.pronamespace = current_schema()::regnamespace AND p.prokind = 'f'
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')`,
  );
  const rank = (name: string) => {
    const i = order.indexOf(name);
    return i < 0 ? order.length : i;
  };
  return found.sort((a, b) => rank(a.name) - rank(b.name) || a.signature.localeCompare(b.signature));
}

/** The schema's distributed functions by signature: their distribution argument (index) and forced delegation. */
async function distributedFunctions(connection: Connection): Promise<Map<string, { argument: number | null; forced: boolean | null }>> {
  const found = await rows<{ signature: string; argument: number | null; forced: boolean | null }>(
    connection,
    `SELECT objid::regprocedure::text AS signature, distribution_argument_index AS argument, force_delegation AS forced
       FROM pg_dist_object WHERE classid = 'pg_proc'::regclass`,
  );
  return new Map(found.map((r) => [r.signature, r]));
}

/**
 * Distributes the schema's functions in the order of `order` (see schemaFunctions):
 * delegated by `p_business` when they take the business first, else propagated.
 * Idempotent: a function already distributed the same way is left as it is.
 */
export async function distributeFunctions(connection: Connection, order: string[]): Promise<void> {
  const known = await distributedFunctions(connection);
  for (const fn of await schemaFunctions(connection, order)) {
    const now = known.get(fn.signature);
    if (fn.delegated) {
      if (now && now.argument === 0 && now.forced) continue;
      await connection.query(
        `SELECT create_distributed_function($1::regprocedure, 'p_business', colocate_with => '${COLOCATION_ANCHOR}', force_delegation => true)`,
        [fn.signature],
      );
    } else if (!now) {
      await connection.query('SELECT create_distributed_function($1::regprocedure)', [fn.signature]);
    }
  }
}

/** How a distribution runs: shards per new table (default DEFAULT_SHARD_COUNT), a line per table placed. */
export interface DistributeOptions {
  shardCount?: number;
  log?: (line: string) => void;
}

/**
 * Places every table of the schema and distributes its functions (see the module
 * comment), moving rows already there to the shards, then checks. Idempotent: a second
 * run changes nothing. Throws when Citus is not installed, or when `check` finds a table
 * placed otherwise than its class says.
 *
 * `order`: the SQL definitions' function names in dependency order (sqlFunctions.ts);
 * `shardCount`: shards per distributed table (default DEFAULT_SHARD_COUNT), for tables
 * not distributed yet. Runs on one connection to the coordinator, outside a transaction
 * block (Citus distributes a table with its rows in a transaction of its own).
 */
export async function distribute(
  connection: Connection,
  order: string[],
  opts: DistributeOptions = {},
): Promise<void> {
  await connection.query('CREATE EXTENSION IF NOT EXISTS citus');
  const database = (await rows<{ name: string }>(connection, 'SELECT current_database() AS name'))[0].name;
  // The ledger's and the outbox's triggers fire on the shard, writing only rows of the
  // same business (same shard group): safe. A database-wide setting, so that the applier
  // re-creating them at a later start needs nothing of its own.
  await connection.query(`ALTER DATABASE "${database}" SET citus.enable_unsafe_triggers = on`);
  await keepDistributed(connection, order, opts);
  await check(connection, order);
}

/**
 * Places the tables not placed yet (a tenant table a migration added, on a database
 * distributed before it) and distributes the functions not distributed as they should
 * be (re-created by the SQL definitions' applier): what `npm start` runs on a distributed
 * database after its migrations and definitions (src/db/sqlFunctions.ts). Cheap when
 * nothing is to do: a few catalog reads.
 */
export async function keepDistributed(
  connection: Connection,
  order: string[],
  opts: DistributeOptions = {},
): Promise<void> {
  await connection.query('SET citus.enable_unsafe_triggers = on');
  // Without it, a reference table's referencing tables become Citus-local tables, which
  // cannot be distributed afterwards.
  await connection.query('SET citus.enable_local_reference_table_foreign_keys = off');
  await connection.query(`SET citus.shard_count = ${Math.trunc(opts.shardCount ?? DEFAULT_SHARD_COUNT)}`);
  try {
    await placeTables(connection, opts.log ?? (() => undefined));
    await distributeFunctions(connection, order);
  } finally {
    // The connection may be a pool's (the applier's): it goes back as it came.
    await connection.query('RESET citus.enable_unsafe_triggers; RESET citus.enable_local_reference_table_foreign_keys; RESET citus.shard_count');
  }
}

/** The tables not placed yet, placed by their class (keepDistributed's settings in force). */
async function placeTables(connection: Connection, log: (line: string) => void): Promise<void> {

  const all = await schemaTables(connection);
  const placed = await placements(connection);
  const moved: string[] = [];
  for (const table of Object.keys(REFERENCE_TABLES)) {
    if (placed.has(table)) continue;
    log(`reference table ${table}`);
    await connection.query('SELECT create_reference_table($1)', [table]);
    moved.push(table);
  }
  const tenants = tenantTables(all);
  // A foreign key to a tenant table not yet distributed is taken off while its table is
  // distributed and put back once both are (card_issuances and cards name each other).
  const foreignKeys = await tenantForeignKeys(connection, tenants);
  const taken: ForeignKey[] = [];
  for (const table of [COLOCATION_ANCHOR, ...tenants.filter((t) => t !== COLOCATION_ANCHOR)]) {
    if (placed.has(table)) continue;
    for (const fk of foreignKeys.filter((k) => k.table === table && !placed.has(k.references))) {
      await connection.query(`ALTER TABLE "${fk.table}" DROP CONSTRAINT "${fk.name}"`);
      taken.push(fk);
    }
    log(`tenant table ${table}`);
    await connection.query(`SELECT create_distributed_table($1, 'business_id', colocate_with => $2)`, [
      table,
      table === COLOCATION_ANCHOR ? 'none' : COLOCATION_ANCHOR,
    ]);
    placed.set(table, { method: 'h', column: 'business_id', replication: 's', colocation: 0 });
    moved.push(table);
  }
  for (const fk of taken) await connection.query(`ALTER TABLE "${fk.table}" ADD CONSTRAINT "${fk.name}" ${fk.definition}`);
  for (const [table, key] of Object.entries(DIRECTORY_KEYS)) {
    if (placed.has(table)) continue;
    log(`directory ${table} by ${key}`);
    await connection.query(`SELECT create_distributed_table($1, $2, colocate_with => 'none')`, [table, key]);
    moved.push(table);
  }
  // The rows copied to the shards stay in the coordinator's table until truncated. That copy
  // is no longer the table's rows, so a table's own guard against TRUNCATE (the audit log's,
  // src/audit/sql/) does not fire for it: replica mode skips ordinary triggers.
  if (moved.length) await connection.query('SET session_replication_role = replica');
  try {
    for (const table of moved) await connection.query('SELECT truncate_local_data_after_distributing_table($1)', [table]);
  } finally {
    if (moved.length) await connection.query('RESET session_replication_role');
  }
}

/**
 * Fails, naming them, on the tables placed otherwise than their class says (a tenant table
 * not distributed by business_id in the anchor's colocation group, a Citus-local table, a
 * global table placed wrong) and on the functions not distributed as `distributeFunctions`
 * does.
 */
export async function check(connection: Connection, order: string[]): Promise<void> {
  const all = await schemaTables(connection);
  const placed = await placements(connection);
  const anchor = placed.get(COLOCATION_ANCHOR)?.colocation;
  const wrong: string[] = [];
  for (const table of all) {
    const p = placed.get(table);
    if (table in COORDINATOR_TABLES) {
      if (p) wrong.push(`${table}: a coordinator table, placed (${p.method}/${p.replication})`);
    } else if (table in REFERENCE_TABLES) {
      if (!p || p.method !== 'n' || p.replication !== 't') wrong.push(`${table}: not a reference table`);
    } else if (table in DIRECTORY_TABLES) {
      if (!p || p.method !== 'h' || p.column !== DIRECTORY_KEYS[table]) wrong.push(`${table}: not distributed by ${DIRECTORY_KEYS[table]}`);
    } else if (!p || p.method !== 'h' || p.column !== 'business_id' || p.colocation !== anchor) {
      wrong.push(`${table}: not distributed by business_id with ${COLOCATION_ANCHOR} (${p ? `${p.method}/${p.column ?? '-'}` : 'local'})`);
    }
  }
  const distributed = await distributedFunctions(connection);
  for (const fn of await schemaFunctions(connection, order)) {
    const d = distributed.get(fn.signature);
    if (!d) wrong.push(`function ${fn.signature}: not distributed`);
    else if (fn.delegated && (d.argument !== 0 || !d.forced)) wrong.push(`function ${fn.signature}: not delegated by p_business`);
  }
  if (wrong.length) throw new Error(`the schema is not distributed as docs/scale-out.md says:\n  ${wrong.join('\n  ')}`);
}
