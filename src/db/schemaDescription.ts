/**
 * The live schema as a reader needs it, read from PostgreSQL's catalog (pg_dump is not
 * shipped with the embedded PostgreSQL): per table its columns, primary key, unique
 * constraints and indexes, other indexes, foreign keys, checks and triggers; the
 * sequences; then the functions, each with the `.sql` file that defines it (from
 * `sql_definitions`, src/db/sqlFunctions.ts).
 *
 * This module reads the catalog into a `SchemaDescription`; ./schemaMarkdown.ts renders
 * one as docs/schema.md and reports where two renderings differ. Their readers:
 * `npm run db:schema` (scripts/schema.ts) writes docs/schema.md; a test compares a freshly
 * described database with that file (drift); the upgrade test compares a database migrated
 * by the old migrations and then upgraded with one migrated from the baseline
 * (src/db/migrations/).
 *
 * Scope: the connection's current schema (the service's). pg-boss's own schema
 * (`pgboss`, created by pg-boss at start, src/jobs/) is left out; knex's two tables are
 * named only. Nothing that changes with the data is described (no sequence values, no
 * row counts), and every list is sorted by name in byte order (`COLLATE "C"`, the same
 * under every locale), so two databases with the same schema give the same text.
 */
import type { Knex } from 'knex';

/** Tables that knex creates and owns: named, not described. */
export const KNEX_TABLES = ['knex_migrations', 'knex_migrations_lock'] as const;

/** One column, in the table's column order (`attnum`, dropped columns skipped). */
export interface ColumnDescription {
  name: string;
  /** `format_type`, e.g. `numeric(20,2)`, `timestamp(3) with time zone`. */
  type: string;
  notNull: boolean;
  /** The default's expression as PostgreSQL prints it, or null. */
  default: string | null;
}

/** A constraint or an index: its name and PostgreSQL's own definition of it. */
export interface NamedDefinition {
  name: string;
  definition: string;
}

/** A trigger and the `.sql` file that creates it (the file of its function), if known. */
export interface TriggerDescription extends NamedDefinition {
  file: string | null;
}

/** One table of the service's schema. */
export interface TableDescription {
  name: string;
  /** True for an UNLOGGED table. */
  unlogged: boolean;
  /** Storage parameters (`WITH (fillfactor=…)`), usually none. */
  options: string[];
  columns: ColumnDescription[];
  primaryKey: NamedDefinition | null;
  /** UNIQUE constraints, and unique indexes that back no constraint (e.g. partial ones). */
  unique: NamedDefinition[];
  /** Indexes that are neither the primary key nor unique. */
  indexes: NamedDefinition[];
  foreignKeys: NamedDefinition[];
  checks: NamedDefinition[];
  triggers: TriggerDescription[];
}

/** A sequence (its settings; never its current value). */
export interface SequenceDescription {
  name: string;
  type: string;
  start: string;
  increment: string;
  min: string;
  max: string;
  cache: string;
  cycle: boolean;
  /** `table.column` whose default it feeds when the column owns it (serial), or null. */
  ownedBy: string | null;
}

/** A function or procedure of the service's schema. */
export interface FunctionDescription {
  /** `schema.name`. */
  name: string;
  /** `pg_get_function_arguments`: names, types and defaults. */
  arguments: string;
  /** `pg_get_function_result`, e.g. `jsonb`, `trigger`, `TABLE(...)`. */
  returns: string;
  language: string;
  volatility: 'immutable' | 'stable' | 'volatile';
  /** Settings of the function (`SET name = value`), e.g. `enable_seqscan=off`. */
  settings: string[];
  /** The `.sql` file recorded in `sql_definitions` as defining it, or null. */
  file: string | null;
}

/** The schema of one database (see the module comment). */
export interface SchemaDescription {
  schema: string;
  tables: TableDescription[];
  sequences: SequenceDescription[];
  functions: FunctionDescription[];
}

type Rows<T> = Promise<T[]>;

async function rows<T>(db: Knex, sql: string, bindings: Knex.RawBinding[] = []): Rows<T> {
  return (await db.raw(sql, bindings)).rows as T[];
}

const byName = <T extends { name: string }>(a: T, b: T): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** `pg_get_indexdef` without its `CREATE … INDEX name ON schema.table` prefix: `USING btree (a, b) WHERE …`. */
function indexBody(definition: string): string {
  return definition.replace(/^CREATE (UNIQUE )?INDEX \S+ ON (ONLY )?\S+ /, '');
}

/**
 * Describes the schema of `db`'s connections (their `current_schema()`). Reads the
 * catalog only; `sql_definitions` is read when it exists (for each function's file).
 */
export async function describeSchema(db: Knex): Promise<SchemaDescription> {
  const [{ schema }] = await rows<{ schema: string }>(db, 'SELECT current_schema() AS schema');
  const knexTables = [...KNEX_TABLES];

  const tables = await rows<{ name: string; unlogged: boolean; options: string[] }>(
    db,
    `SELECT c.relname AS name, c.relpersistence = 'u' AS unlogged, coalesce(c.reloptions, '{}') AS options FROM pg_class c
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT (c.relname = ANY(?))
      ORDER BY c.relname COLLATE "C"`,
    [knexTables],
  );
  const columns = await rows<ColumnDescription & { table: string }>(
    db,
    `SELECT c.relname AS table, a.attname AS name,
            format_type(a.atttypid, a.atttypmod)
              || CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation
                      THEN ' COLLATE ' || (SELECT quote_ident(collname) FROM pg_collation WHERE oid = a.attcollation) ELSE '' END
              || CASE a.attidentity WHEN 'a' THEN ' GENERATED ALWAYS AS IDENTITY' WHEN 'd' THEN ' GENERATED BY DEFAULT AS IDENTITY' ELSE '' END
              || CASE a.attgenerated WHEN 's' THEN ' GENERATED ALWAYS (stored)' WHEN 'v' THEN ' GENERATED ALWAYS (virtual)' ELSE '' END AS type,
            a.attnotnull AS "notNull", pg_get_expr(d.adbin, d.adrelid) AS default
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_type t ON t.oid = a.atttypid
       LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY c.relname COLLATE "C", a.attnum`,
  );
  // Constraints other than NOT NULL (PostgreSQL 18 catalogues those too: the columns' nullability says it).
  const constraints = await rows<NamedDefinition & { table: string; kind: string }>(
    db,
    `SELECT c.relname AS table, k.conname AS name, k.contype AS kind, pg_get_constraintdef(k.oid) AS definition
       FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
      WHERE c.relnamespace = current_schema()::regnamespace AND k.contype IN ('p', 'u', 'f', 'c', 'x')
      ORDER BY c.relname COLLATE "C", k.conname COLLATE "C"`,
  );
  // Indexes that back no constraint (a constraint's index is described by the constraint).
  const indexes = await rows<NamedDefinition & { table: string; unique: boolean }>(
    db,
    `SELECT c.relname AS table, i.relname AS name, x.indisunique AS unique, pg_get_indexdef(x.indexrelid) AS definition
       FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
      WHERE c.relnamespace = current_schema()::regnamespace
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid AND k.conrelid = x.indrelid)
      ORDER BY c.relname COLLATE "C", i.relname COLLATE "C"`,
  );
  const hasRecord = (await rows<{ found: boolean }>(db, "SELECT to_regclass('sql_definitions') IS NOT NULL AS found"))[0].found;
  const files = new Map<string, string>();
  if (hasRecord) {
    const recorded = await rows<{ name: string; functions: string[] }>(db, 'SELECT name, functions FROM sql_definitions ORDER BY name COLLATE "C"');
    for (const r of recorded) for (const f of r.functions) files.set(f, r.name);
  }
  const triggers = await rows<NamedDefinition & { table: string; function: string }>(
    db,
    `SELECT c.relname AS table, t.tgname AS name, p.proname AS function, pg_get_triggerdef(t.oid) AS definition
       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid
      WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
      ORDER BY c.relname COLLATE "C", t.tgname COLLATE "C"`,
  );

  const described: TableDescription[] = tables.map((t) => {
    const own = <T extends { table: string }>(list: T[]) => list.filter((r) => r.table === t.name);
    const cons = own(constraints);
    const kind = (k: string) => cons.filter((c) => c.kind === k).map(({ name, definition }) => ({ name, definition }));
    const ownIndexes = own(indexes);
    const index = (unique: boolean) =>
      ownIndexes.filter((i) => i.unique === unique).map(({ name, definition }) => ({ name, definition: `${unique ? 'UNIQUE ' : ''}${indexBody(definition)}` }));
    return {
      name: t.name,
      unlogged: t.unlogged,
      options: t.options,
      columns: own(columns).map(({ name, type, notNull, default: def }) => ({ name, type, notNull, default: def })),
      primaryKey: kind('p')[0] ?? null,
      unique: [...kind('u'), ...index(true)].sort(byName),
      indexes: index(false),
      foreignKeys: kind('f'),
      checks: [...kind('c'), ...kind('x')].sort(byName),
      triggers: own(triggers).map(({ name, definition, function: fn }) => ({ name, definition, file: files.get(fn) ?? null })),
    };
  });

  const sequences = await rows<SequenceDescription>(
    db,
    `SELECT c.relname AS name, format_type(s.seqtypid, NULL) AS type, s.seqstart::text AS start, s.seqincrement::text AS increment,
            s.seqmin::text AS min, s.seqmax::text AS max, s.seqcache::text AS cache, s.seqcycle AS cycle,
            (SELECT t.relname || '.' || a.attname FROM pg_depend d
               JOIN pg_class t ON t.oid = d.refobjid JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
              WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.refclassid = 'pg_class'::regclass
                AND d.deptype IN ('a', 'i')) AS "ownedBy"
       FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid
      WHERE c.relnamespace = current_schema()::regnamespace
      ORDER BY c.relname COLLATE "C"`,
  );

  // Functions of extensions (none today) belong to their extension, not to the service.
  const functions = await rows<Omit<FunctionDescription, 'file'> & { proname: string }>(
    db,
    `SELECT n.nspname || '.' || p.proname AS name, p.proname, pg_get_function_arguments(p.oid) AS arguments,
            coalesce(pg_get_function_result(p.oid), '') AS returns, l.lanname AS language,
            CASE p.provolatile WHEN 'i' THEN 'immutable' WHEN 's' THEN 'stable' ELSE 'volatile' END AS volatility,
            coalesce(p.proconfig, '{}') AS settings
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
      WHERE p.pronamespace = current_schema()::regnamespace
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
      ORDER BY p.proname COLLATE "C", pg_get_function_identity_arguments(p.oid) COLLATE "C"`,
  );

  return {
    schema,
    tables: described,
    sequences: sequences.filter((s) => !knexTables.some((k) => s.ownedBy?.startsWith(`${k}.`))),
    functions: functions.map(({ proname, ...f }) => ({ ...f, file: files.get(proname) ?? null })),
  };
}
