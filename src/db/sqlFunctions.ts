/**
 * The service's SQL definitions: every PL/pgSQL (and SQL-language) function and
 * trigger function has exactly one current definition, in a `.sql` file beside the
 * TypeScript of its capability (`src/<capability>/sql/<name>.sql`, `CREATE OR
 * REPLACE`; a trigger function's file also creates its trigger). Migrations hold
 * DDL and data changes only. Why this pattern: openapi/DESIGN.md, "Current SQL".
 * A file belongs to the capability that owns what it reads and writes: the kernel's
 * (kernel/sql/: idempotency keys, request ids) are below the ledger's, the ledger's
 * below the capabilities'. A lower file calls no function of a higher one, and a
 * capability none of another's: a capability that posts wraps the kernel's
 * Idempotency-Key bracket and the ledger's posting and held balances around its own
 * entry points (test/platform/database/sqlDefinitions.test.ts checks every call goes down).
 *
 * Every PL/pgSQL function is declared `SET enable_seqscan = off` (the one place this
 * is explained; the files carry the setting alone): PL/pgSQL caches each statement's
 * plan for the life of the connection, and a plan made while a table was small is a
 * sequential scan that stays one while the table grows, until autovacuum analyzes it
 * again. With the setting, point lookups (an account, an idempotency key, a payout, a
 * customer by its identifier) keep their index whatever the table's size was at
 * planning (openapi/DESIGN.md, "Plans that outlive a small table", has the
 * measurements; test/platform/database/sqlDefinitions.test.ts checks every function has it).
 *
 * `applySqlDefinitions` runs after the migrations (`connectAndMigrate`), because a
 * definition may use any table or type they create. It applies the files whose
 * content changed since they were last applied, recorded in `sql_definitions` (file,
 * SHA-256, the functions it defines):
 *   - a start with nothing changed costs two queries (the record, compared in memory,
 *     and whether the database is distributed by business on Citus);
 *   - otherwise, in one transaction under a transaction-level advisory lock (so that
 *     instances starting at once apply them once: the second waits, reads the record
 *     again and finds nothing to do): first the functions that the changed files define
 *     or defined are dropped (so that a changed signature leaves no old overload
 *     behind), those of recorded files that no longer exist (a file moved to another
 *     folder is a removed file and a new one: its functions are dropped once and created
 *     again from the new path), and any function of the schema that no file defines
 *     (left behind by a rename, or by a migration from before the SQL lived in files),
 *     so that the schema's functions are exactly the files'; then each changed file
 *     runs, in dependency order (a file after the files whose functions it calls, then
 *     by path), and is recorded. Trigger functions of changed files are replaced in
 *     place instead (their signature never changes and their triggers depend on them).
 *     A function that something outside the files depends on (a view, a default) is
 *     not dropped silently: the start fails and names it;
 *   - on a database distributed by business (docs/scale-out.md), then, under a session
 *     advisory lock: the tables a migration added are placed and the functions
 *     distributed again as `npm run db:distribute` does (src/db/distribution.ts,
 *     `keepDistributed`), since a re-created function is the coordinator's alone.
 *
 * The files are read from the directory tree this module runs in: `src/` under tsx,
 * `dist/src/` compiled (`npm run build` copies them there, see scripts/build.mjs).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import type pg from 'pg';
import { citusDistributed, keepDistributed } from './distribution.js';

/** The tree holding the capability folders: src/ or dist/src/. */
const SOURCE_ROOT = path.join(import.meta.dirname, '..');

/** Taken for the transaction that applies definitions; one constant for every instance. */
const APPLY_LOCK_KEY = "hashtextextended('sql_definitions', 0)";

/** One `.sql` file. */
export interface SqlDefinition {
  /** Its path below src/, with `/` separators, e.g. `ledger/sql/ledger_move.sql`: its key in `sql_definitions`. */
  name: string;
  sql: string;
  sha256: string;
  /** The functions it creates (lower-case names), in order of appearance. */
  functions: string[];
  /** The triggers it creates: `table.trigger`. */
  triggers: string[];
}

const FUNCTION = /\bCREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(/gi;
const TRIGGER = /\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:CONSTRAINT\s+)?TRIGGER\s+([A-Za-z_][A-Za-z0-9_]*)\s[\s\S]*?\bON\s+([A-Za-z_][A-Za-z0-9_]*)/gi;

/** The SQL of `sql` without its `--` comments (names in comments are not definitions or calls). */
function withoutComments(sql: string): string {
  return sql.replace(/--[^\n]*/g, '');
}

/** Parses one file's text. */
export function parseDefinition(name: string, sql: string): SqlDefinition {
  const code = withoutComments(sql);
  return {
    name,
    sql,
    sha256: createHash('sha256').update(sql).digest('hex'),
    functions: [...code.matchAll(FUNCTION)].map((m) => m[1].toLowerCase()),
    triggers: [...code.matchAll(TRIGGER)].map((m) => `${m[2].toLowerCase()}.${m[1].toLowerCase()}`),
  };
}

/**
 * Orders `definitions` so that a file comes after the files defining the functions
 * it calls (a call is the name followed by `(` outside comments), ties broken by
 * name; a cycle (which only PL/pgSQL allows: its bodies are bound when they run) is
 * broken at the first file by name.
 */
export function dependencyOrder(definitions: SqlDefinition[]): SqlDefinition[] {
  const sorted = [...definitions].sort((a, b) => a.name.localeCompare(b.name));
  const definer = new Map<string, SqlDefinition>();
  for (const d of sorted) for (const f of d.functions) definer.set(f, d);
  const needs = new Map<SqlDefinition, Set<SqlDefinition>>();
  for (const d of sorted) {
    const calls = new Set<SqlDefinition>();
    for (const m of withoutComments(d.sql).matchAll(/\b([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)) {
      const other = definer.get(m[1].toLowerCase());
      if (other && other !== d) calls.add(other);
    }
    needs.set(d, calls);
  }
  const order: SqlDefinition[] = [];
  const placed = new Set<SqlDefinition>();
  while (order.length < sorted.length) {
    const ready = sorted.find((d) => !placed.has(d) && [...needs.get(d)!].every((n) => placed.has(n)));
    const next = ready ?? sorted.find((d) => !placed.has(d))!;
    order.push(next);
    placed.add(next);
  }
  return order;
}

/** Every `.sql` file of `src/<capability>/sql/` (or `dist/src/…`), in dependency order. */
export function sqlDefinitions(root = SOURCE_ROOT): SqlDefinition[] {
  const found: SqlDefinition[] = [];
  for (const capability of readdirSync(root).sort()) {
    const dir = path.join(root, capability, 'sql');
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).sort()) {
      if (file.endsWith('.sql')) found.push(parseDefinition(`${capability}/sql/${file}`, readFileSync(path.join(dir, file), 'utf8')));
    }
  }
  return dependencyOrder(found);
}

interface Recorded {
  name: string;
  sha256: string;
  functions: string[];
}

/** Knex's pool as the pg driver's connections (the same access `preparedQuery` uses). */
interface PgPool {
  acquireConnection(): Promise<pg.Client>;
  releaseConnection(connection: pg.Client): Promise<void>;
}

/** The files of `definitions` not recorded with their current content, and the recorded files that are gone. */
function pending(definitions: SqlDefinition[], recorded: Recorded[]): { changed: SqlDefinition[]; removed: Recorded[] } {
  const bySha = new Map(recorded.map((r) => [r.name, r.sha256]));
  const names = new Set(definitions.map((d) => d.name));
  return { changed: definitions.filter((d) => bySha.get(d.name) !== d.sha256), removed: recorded.filter((r) => !names.has(r.name)) };
}

/** The names of the functions of the service's schema (members of extensions left out). */
async function schemaFunctions(connection: pg.Client): Promise<string[]> {
  const { rows } = await connection.query<{ name: string }>(
    `SELECT DISTINCT p.proname AS name FROM pg_proc p
      WHERE p.pronamespace = current_schema()::regnamespace AND p.prokind = 'f'
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')`,
  );
  return rows.map((r) => r.name);
}

/**
 * Drops every overload of the functions `names` in the service's schema, except
 * trigger functions unless `triggersToo` (then with their triggers).
 */
async function dropFunctions(connection: pg.Client, names: string[], triggersToo: boolean): Promise<void> {
  if (!names.length) return;
  const { rows } = await connection.query<{ signature: string; trigger: boolean }>(
    `SELECT p.oid::regprocedure::text AS signature, p.prorettype = 'trigger'::regtype AS trigger
       FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace AND p.proname = ANY($1)`,
    [names],
  );
  for (const row of rows) {
    if (row.trigger && !triggersToo) continue;
    await connection.query(`DROP FUNCTION ${row.signature}${row.trigger ? ' CASCADE' : ''}`);
  }
}

/**
 * Applies the SQL definitions that changed (see the module comment) on `db`, whose
 * migrations are applied. Returns the names of the files it applied (empty when
 * nothing changed, or when another instance applied them first). Throws the
 * database's error of a file, naming it; nothing of that start is then applied.
 */
export async function applySqlDefinitions(db: Knex, definitions: SqlDefinition[] = sqlDefinitions()): Promise<string[]> {
  const pool = db.client as PgPool;
  const connection = await pool.acquireConnection();
  try {
    const applied = await applyChanged(connection, definitions);
    // On a database distributed by business (Citus, docs/scale-out.md), a function the
    // files re-created is the coordinator's only, one that took the business first is no
    // longer delegated to its node, and a table a migration added is the coordinator's:
    // placed and distributed again, after the commit (also when another instance applied
    // the files, or a start died between the two), one instance at a time.
    if (await citusDistributed(connection)) {
      await connection.query(`SELECT pg_advisory_lock(${APPLY_LOCK_KEY})`);
      try {
        await keepDistributed(connection, definitions.flatMap((d) => d.functions));
      } finally {
        await connection.query(`SELECT pg_advisory_unlock(${APPLY_LOCK_KEY})`);
      }
    }
    return applied;
  } finally {
    await pool.releaseConnection(connection);
  }
}

/** The body of applySqlDefinitions on one connection: the changed files, applied in one transaction. */
async function applyChanged(connection: pg.Client, definitions: SqlDefinition[]): Promise<string[]> {
  const read = async () => (await connection.query<Recorded>('SELECT name, sha256, functions FROM sql_definitions')).rows;
  const first = pending(definitions, await read());
  if (!first.changed.length && !first.removed.length) return [];
  await connection.query('BEGIN');
  try {
    await connection.query(`SELECT pg_advisory_xact_lock(${APPLY_LOCK_KEY})`);
    const recorded = await read();
    const { changed, removed } = pending(definitions, recorded);
    // Every function a changed or removed file defines or defined is dropped before any
    // file runs, so that a function moving from one file to another is dropped once.
    const before = new Map(recorded.map((r) => [r.name, r.functions]));
    const dropped = new Set([...changed.flatMap((d) => [...(before.get(d.name) ?? []), ...d.functions])]);
    await dropFunctions(connection, [...dropped], false);
    // Then every function no file defines: those of removed files, and any other left behind.
    const defined = new Set(definitions.flatMap((d) => d.functions));
    await dropFunctions(connection, (await schemaFunctions(connection)).filter((f) => !defined.has(f)), true);
    for (const gone of removed) await connection.query('DELETE FROM sql_definitions WHERE name = $1', [gone.name]);
    for (const d of changed) {
      try {
        await connection.query(d.sql);
      } catch (err) {
        throw Object.assign(err as Error, { message: `${d.name}: ${(err as Error).message}` });
      }
      await connection.query(
        `INSERT INTO sql_definitions (name, sha256, functions) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET sha256 = EXCLUDED.sha256, functions = EXCLUDED.functions, applied_at = EXCLUDED.applied_at`,
        [d.name, d.sha256, d.functions],
      );
    }
    await connection.query('COMMIT');
    return changed.map((d) => d.name);
  } catch (err) {
    await connection.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
