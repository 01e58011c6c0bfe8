/**
 * The statements of the service's SQL functions that run on a Citus worker keep a cached
 * local plan (docs/scale-out.md): Citus caches the plan of a statement inside a delegated
 * function only when the statement is fast-path shaped; any other statement on a
 * distributed table is deparsed, parsed and planned again on every call. Checked on the SQL
 * itself (src/**\/sql/*.sql), so that it holds without a cluster.
 *
 * A statement is fast-path shaped when it:
 *   - names one table (FROM, JOIN, USING, the target of INSERT, UPDATE, DELETE), and no join;
 *   - has no sublink (`(SELECT …`, `EXISTS (…`, `ARRAY(SELECT …`) and no CTE (a leading WITH);
 *   - names its business as a value: `business_id = <a parameter or variable>` at the top
 *     level of the statement (outside any parentheses), or, for an INSERT, a parameter or
 *     variable as the `business_id` column's value;
 *   - calls no volatile function (VOLATILE_BUILTINS, and the schema's own VOLATILE
 *     functions), and, for a write, reads no clock (STABLE_CLOCK): draw such a value into a
 *     variable first, in a statement with no table. (A column left to a default that calls
 *     a function is the same as a call; the SQL is not enough to see it.)
 *
 * What counts as a statement of a PL/pgSQL body: each piece between `;` outside parentheses,
 * with its control words peeled off, and the expressions PL/pgSQL evaluates as queries taken
 * as statements of their own (`IF`/`ELSIF <cond> THEN`, `WHILE <cond> LOOP`,
 * `FOR … IN <query> LOOP`, `RETURN [QUERY] …`, `x := …`, a declaration's initial value);
 * comments and string literals are blanked first. Only statements that name a tenant table
 * (every table src/db/tableClasses.ts does not name global) are judged, and only in the
 * functions that run on a worker: those Citus delegates (src/db/distribution.ts: they take
 * the business first), the trigger functions (they run where the row is), and every
 * function one of those calls. A function only the coordinator runs sends each statement
 * to a worker whatever its shape.
 *
 * A statement that is not fast-path shaped for a reason is listed in KNOWN_UNCACHEABLE by
 * file and function, with the reason; the list may only shrink (an entry whose function
 * passes fails the test until it is removed). Self-tests run the checker on inline samples.
 */
import { expect } from 'chai';
import type pg from 'pg';
import { schemaFunctions } from '../../../src/db/distribution.js';
import { sqlDefinitions } from '../../../src/db/sqlFunctions.js';
import { tenantTables } from '../../../src/db/tableClasses.js';
import { TABLE_OWNERS } from '../../../src/db/tableOwners.js';
import { blankSqlComments, sqlTouches } from '../../support/tableTouches.js';
import { running } from '../../support/service.js';

/**
 * Uncacheable statements kept, by `file function`, each with what breaks the shape: none. An
 * entry needs a reason a reviewer accepts, and is removed as its function passes.
 */
const KNOWN_UNCACHEABLE: Record<string, string> = {};

/**
 * The transaction's clock (stable functions): Citus evaluates a function of a write before
 * it sends the write to its shard, so a write calling one is deparsed on every call; drawn
 * into a variable first, it is a value.
 */
const STABLE_CLOCK = /\b(?:now\s*\(|current_timestamp\b|current_date\b|localtimestamp\b|statement_timestamp\s*\(|transaction_timestamp\s*\()/i;

/** Built-in functions that are volatile and may appear in the service's SQL; now() is stable and not one. */
const VOLATILE_BUILTINS = ['random', 'gen_random_uuid', 'clock_timestamp', 'nextval', 'setval', 'set_config', 'txid_current', 'timeofday'];

/** One function of a `.sql` file, as the checker reads it (comments and strings blanked). */
interface SqlFunction {
  file: string;
  name: string;
  trigger: boolean;
  /** Its parameters, declared variables, loop variables and output columns, lower-case. */
  variables: Set<string>;
  /** Its body, between its dollar quotes. */
  body: string;
}

/** What the checker needs to know of the schema. */
interface Schema {
  /** Every table of the schema (a statement may name only one). */
  tables: ReadonlySet<string>;
  /** The tenant tables (a statement naming none is not judged). */
  tenants: ReadonlySet<string>;
  /** Volatile functions, lower-case. */
  volatile: ReadonlySet<string>;
}

/** One statement that is not fast-path shaped. */
interface Offence {
  file: string;
  function: string;
  statement: string;
  rules: string[];
}

/** `sql` with comments blanked and every string literal's content blanked (its quotes kept). */
function codeOnly(sql: string): string {
  return blankSqlComments(sql).replace(/'(?:[^']|'')*'/g, (s) => `'${' '.repeat(s.length - 2)}'`);
}

/** The offset of the `)` closing the `(` just before `open`, or the text's length. */
function closing(text: string, open: number): number {
  let depth = 1;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i;
  }
  return text.length;
}

/** `text` split at `separator` outside parentheses. */
function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** `text` with the inside of every parenthesis blanked: what is left is its top level. */
function topLevel(text: string): string {
  let depth = 0;
  return text.replace(/[^\n]/g, (c) => {
    if (c === '(') return depth++ === 0 ? c : ' ';
    if (c === ')') return --depth === 0 ? c : ' ';
    return depth > 0 ? ' ' : c;
  });
}

/** The first word of each item of a parameter or column list (`IN`, `OUT` … skipped). */
function itemNames(list: string): string[] {
  return splitTopLevel(list, ',')
    .map((p) => p.trim().replace(/^(?:IN|OUT|INOUT|VARIADIC)\s+/i, '').match(/^"?([A-Za-z_]\w*)"?\s+\S/)?.[1]?.toLowerCase())
    .filter((n): n is string => n !== undefined);
}

/** The functions of one file. */
function sqlFunctions(file: string, sql: string): SqlFunction[] {
  const code = codeOnly(sql);
  const found: SqlFunction[] = [];
  for (const m of code.matchAll(/\bCREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+(\w+)\s*\(/gi)) {
    const open = m.index + m[0].length;
    const close = closing(code, open);
    const quote = /\bAS\s+(\$\w*\$)/gi;
    quote.lastIndex = close;
    const q = quote.exec(code);
    if (!q) continue;
    const start = q.index + q[0].length;
    const end = code.indexOf(q[1], start);
    const head = code.slice(close, q.index);
    const body = code.slice(start, end);
    const variables = new Set(['new', 'old', ...itemNames(code.slice(open, close))]);
    const table = head.match(/\bRETURNS\s+TABLE\s*\(/i);
    if (table) itemNames(head.slice(table.index! + table[0].length, closing(head, table.index! + table[0].length))).forEach((n) => variables.add(n));
    const declare = body.match(/^\s*DECLARE\b([\s\S]*?)\bBEGIN\b/i);
    for (const d of declare ? splitTopLevel(declare[1], ';') : []) {
      const name = d.trim().match(/^(\w+)\s/)?.[1];
      if (name) variables.add(name.toLowerCase());
    }
    for (const v of body.matchAll(/\bFOR(?:EACH)?\s+(\w+(?:\s*,\s*\w+)*)\s+(?:SLICE\s+\d+\s+)?IN\b/gi)) v[1].split(',').forEach((n) => variables.add(n.trim().toLowerCase()));
    found.push({ file, name: m[1].toLowerCase(), trigger: /\bRETURNS\s+trigger\b/i.test(head), variables, body });
  }
  return found;
}

/**
 * The offset just after the control word `word` (THEN, LOOP) that ends the expression at the
 * start of `text`: the first one outside parentheses and outside a SQL CASE … END.
 */
function endOfExpression(text: string, word: string): { expression: string; rest: string } {
  const top = topLevel(text);
  let cases = 0;
  for (const m of top.matchAll(/\b(CASE|END|THEN|LOOP)\b/gi)) {
    const w = m[1].toUpperCase();
    if (w === 'CASE') cases++;
    else if (w === 'END') cases--;
    else if (w === word && cases === 0) return { expression: text.slice(0, m.index), rest: text.slice(m.index + m[0].length) };
  }
  return { expression: text, rest: '' };
}

/**
 * The statements of a PL/pgSQL body as the checker judges them: SQL statements as written,
 * expressions as `SELECT <expression>` (PL/pgSQL runs each as such a query).
 */
function statementsOf(body: string): string[] {
  const out: string[] = [];
  const declare = body.match(/^\s*DECLARE\b([\s\S]*?)\bBEGIN\b/i);
  if (declare) {
    for (const d of splitTopLevel(declare[1], ';')) {
      const init = d.match(/(?::=|=|\bDEFAULT\b)([\s\S]*)$/i);
      if (init) out.push(`SELECT ${init[1].trim()}`);
    }
  }
  const expression = (e: string) => e.trim() && out.push(`SELECT ${e.trim()}`);
  for (let piece of splitTopLevel(declare ? body.slice(declare[0].length) : body, ';')) {
    for (;;) {
      piece = piece.trim();
      let m: RegExpMatchArray | null;
      if (!piece || /^END(?:\s+(?:IF|LOOP|CASE))?(?:\s+\w+)?$/i.test(piece)) break;
      if ((m = piece.match(/^(?:<<\w+>>|BEGIN\b|ELSE\b|LOOP\b|EXCEPTION\b)/i))) piece = piece.slice(m[0].length);
      else if ((m = piece.match(/^(?:IF|ELSIF|ELSEIF|WHEN)\b/i))) {
        const { expression: e, rest } = endOfExpression(piece.slice(m[0].length), 'THEN');
        expression(e);
        piece = rest;
      } else if ((m = piece.match(/^(?:WHILE\b|FOREACH\s+\w+\s+(?:SLICE\s+\d+\s+)?IN\s+ARRAY\b)/i))) {
        const { expression: e, rest } = endOfExpression(piece.slice(m[0].length), 'LOOP');
        expression(e);
        piece = rest;
      } else if ((m = piece.match(/^FOR\s+\w+(?:\s*,\s*\w+)*\s+IN\s+(?:REVERSE\s+)?(?:EXECUTE\b)?/i))) {
        const { expression: e, rest } = endOfExpression(piece.slice(m[0].length), 'LOOP');
        const query = e.trim();
        if (/^(?:SELECT|WITH|VALUES|TABLE)\b/i.test(query)) out.push(query);
        else expression(query.replace(/\.\./, ','));
        piece = rest;
      } else if ((m = piece.match(/^CASE\b/i))) {
        const when = piece.search(/\bWHEN\b/i);
        expression(piece.slice(m[0].length, when < 0 ? piece.length : when));
        piece = when < 0 ? '' : piece.slice(when);
      } else if ((m = piece.match(/^RETURN\s+QUERY\s+(?:EXECUTE\b)?/i))) {
        out.push(piece.slice(m[0].length).trim());
        break;
      } else if ((m = piece.match(/^(?:RETURN(?:\s+NEXT)?|RAISE|ASSERT|EXIT|CONTINUE)\b|^[A-Za-z_][\w.]*(?:\[[^\]]*\])?\s*:?=(?!=)/i))) {
        expression(piece.slice(m[0].length).replace(/^\s*(?:WHEN\b|EXCEPTION|NOTICE|WARNING|INFO|LOG|DEBUG)/i, ''));
        break;
      } else if ((m = piece.match(/^PERFORM\b/i))) {
        out.push(`SELECT ${piece.slice(m[0].length).trim()}`);
        break;
      } else {
        if (!/^(?:NULL|GET\s|EXECUTE\b|COMMIT|ROLLBACK)/i.test(piece)) out.push(piece);
        break;
      }
    }
  }
  return out.map((s) => s.replace(/\s+/g, ' ').trim()).filter(Boolean);
}

/** Whether `value` (an expression's text) is a parameter or variable of `fn`, or a field of one. */
function isVariable(value: string, fn: SqlFunction): boolean {
  const m = value.trim().match(/^"?([A-Za-z_]\w*)"?(?:\s*\.\s*"?[A-Za-z_]\w*"?)?$/);
  return m !== null && fn.variables.has(m[1].toLowerCase());
}

/** The business's value of an INSERT (its `business_id` column's), or undefined when it names none. */
function insertedBusiness(statement: string): string | undefined {
  const head = statement.match(/^INSERT\s+INTO\s+[\w."]+\s*(?:AS\s+\w+\s*)?\(/i);
  if (!head) return undefined;
  const columnsEnd = closing(statement, head[0].length);
  const columns = splitTopLevel(statement.slice(head[0].length, columnsEnd), ',').map((c) => c.trim().toLowerCase());
  const at = columns.indexOf('business_id');
  if (at < 0) return undefined;
  const after = statement.slice(columnsEnd + 1);
  const values = after.match(/^\s*VALUES\s*\(/i);
  if (values) return splitTopLevel(after.slice(values[0].length, closing(after, values[0].length)), ',')[at];
  const select = after.match(/^\s*\(?\s*SELECT\s+(?:DISTINCT\s+)?/i);
  if (!select) return undefined;
  const list = after.slice(select[0].length);
  const from = topLevel(list).search(/\bFROM\b/i);
  return splitTopLevel(from < 0 ? list : list.slice(0, from), ',')[at]?.replace(/\s+AS\s+\w+\s*$/i, '');
}

/** The rules one statement of `fn` breaks (empty when it is fast-path shaped or names no tenant table). */
function brokenRules(statement: string, fn: SqlFunction, schema: Schema): string[] {
  if (!sqlTouches(statement, schema.tenants).length) return [];
  const rules: string[] = [];
  const named = sqlTouches(statement, schema.tables).map((t) => t.table);
  if (named.length > 1) rules.push(`names ${named.length} tables (${named.join(', ')})`);
  if (/\bJOIN\b/i.test(statement)) rules.push('a join');
  if (/^WITH\b/i.test(statement)) rules.push('a CTE');
  if (/\(\s*SELECT\b|\bEXISTS\s*\(/i.test(statement)) rules.push('a sublink');
  const volatile = [...statement.matchAll(/\b(\w+)\s*\(/g)].map((m) => m[1].toLowerCase()).filter((n) => schema.volatile.has(n));
  if (volatile.length) rules.push(`calls volatile ${[...new Set(volatile)].join(', ')}()`);
  if (/^(?:INSERT|UPDATE)\b/i.test(statement) && STABLE_CLOCK.test(statement)) rules.push('a write that reads the clock');
  if (/^INSERT\b/i.test(statement)) {
    const value = insertedBusiness(statement);
    if (value === undefined || !isVariable(value, fn)) rules.push('no parameter or variable as its business_id value');
  } else {
    const top = topLevel(statement);
    const sides = [...top.matchAll(/(?:"?\w+"?\s*\.\s*)?\bbusiness_id\s*=\s*([\w."]+)|([\w."]+)\s*=\s*(?:"?\w+"?\s*\.\s*)?\bbusiness_id\b/gi)];
    if (!sides.some((m) => isVariable(m[1] ?? m[2], fn))) rules.push('no `business_id = <parameter or variable>` at its top level');
  }
  return rules;
}

/** The offences of `functions` that run on a worker (`onWorker`: their names). */
function offences(functions: SqlFunction[], onWorker: ReadonlySet<string>, schema: Schema): Offence[] {
  const found: Offence[] = [];
  for (const fn of functions) {
    if (!onWorker.has(fn.name)) continue;
    for (const statement of statementsOf(fn.body)) {
      const rules = brokenRules(statement, fn, schema);
      if (rules.length) found.push({ file: fn.file, function: fn.name, statement: statement.slice(0, 120), rules });
    }
  }
  return found;
}

/**
 * The functions that run on a worker: `delegated`, the trigger functions, and every function
 * of `functions` that one of those calls, transitively.
 */
function workerFunctions(functions: SqlFunction[], delegated: Iterable<string>): Set<string> {
  const byName = new Map(functions.map((f) => [f.name, f]));
  const reached = new Set<string>();
  const pending = [...delegated, ...functions.filter((f) => f.trigger).map((f) => f.name)];
  while (pending.length) {
    const name = pending.pop()!;
    if (reached.has(name)) continue;
    reached.add(name);
    for (const m of byName.get(name)?.body.matchAll(/\b(\w+)\s*\(/g) ?? []) if (byName.has(m[1].toLowerCase())) pending.push(m[1].toLowerCase());
  }
  return reached;
}

/** How a report names an offence. */
const described = (o: Offence): string => `${o.file} ${o.function}: ${o.statement} — ${o.rules.join('; ')}`;

/** The schema's VOLATILE functions and the functions Citus delegates, read from the migrated database. */
async function liveSchema(): Promise<{ volatile: Set<string>; delegated: string[] }> {
  const db = running().db;
  const { rows } = await db.raw(`SELECT proname FROM pg_proc WHERE pronamespace = current_schema()::regnamespace AND provolatile = 'v'`);
  const pool = db.client as { acquireConnection(): Promise<pg.Client>; releaseConnection(c: pg.Client): Promise<void> };
  const connection = await pool.acquireConnection();
  try {
    const functions = await schemaFunctions(connection, []);
    return {
      volatile: new Set([...VOLATILE_BUILTINS, ...rows.map((r: { proname: string }) => r.proname)]),
      delegated: functions.filter((f) => f.delegated).map((f) => f.name),
    };
  } finally {
    await pool.releaseConnection(connection);
  }
}

const ALL_TABLES = new Set(Object.keys(TABLE_OWNERS));
const TENANTS = new Set(tenantTables(Object.keys(TABLE_OWNERS)));

describe('Cacheable statements: what a worker runs keeps its plan on Citus', () => {
  it('every statement on a tenant table of a function run on a worker is fast-path shaped, but those listed with a reason', async () => {
    const { volatile, delegated } = await liveSchema();
    const functions = sqlDefinitions().flatMap((d) => sqlFunctions(d.name, d.sql));
    const onWorker = workerFunctions(functions, delegated);
    expect(onWorker, 'the functions run on a worker').to.include.members(['idempotency_enter', 'idempotency_begin', 'event_emit', 'outbox_event_pending', 'customer_by_identifier']);
    const found = offences(functions, onWorker, { tables: ALL_TABLES, tenants: TENANTS, volatile });
    const key = (o: Offence) => `${o.file} ${o.function}`;
    expect(
      found.filter((o) => !(key(o) in KNOWN_UNCACHEABLE)).map(described),
      'statements Citus plans on every call: one table, `business_id = <parameter or variable>`, no sublink, CTE, join or volatile call',
    ).to.deep.equal([]);
    const offending = new Set(found.map(key));
    expect(Object.keys(KNOWN_UNCACHEABLE).filter((k) => !offending.has(k)), 'KNOWN_UNCACHEABLE entries whose function now passes: remove them').to.deep.equal([]);
  });

  it('the checker passes a fast-path function and reports each rule a statement breaks', () => {
    const sample = [
      'CREATE OR REPLACE FUNCTION good(p_business uuid, p_id uuid) RETURNS void LANGUAGE plpgsql AS $$',
      'DECLARE',
      '  id uuid := gen_random_uuid();',
      '  n int;',
      'BEGIN',
      "  -- SELECT 1 FROM accounts a JOIN customers c ON true in a comment is no statement",
      "  PERFORM 1 FROM accounts WHERE business_id = p_business AND name = '(SELECT 1 FROM labels)';",
      '  IF NOT FOUND THEN',
      '    INSERT INTO labels (id, business_id, name) VALUES (id, p_business, $q$x$q$);',
      '  END IF;',
      '  SELECT count(*) INTO n FROM unnest(ARRAY[1, 2]) u;',
      '  UPDATE accounts SET name = p_id::text WHERE id = p_id AND business_id = p_business;',
      'END $$;',
      'CREATE OR REPLACE FUNCTION bad(p_business uuid, p_id uuid) RETURNS void LANGUAGE plpgsql AS $$',
      'DECLARE',
      '  n int := (SELECT count(*) FROM labels WHERE business_id = p_business);',
      'BEGIN',
      '  IF NOT EXISTS (SELECT 1 FROM accounts WHERE business_id = p_business) THEN',
      '    n := (SELECT count(*) FROM labels WHERE business_id = p_business);',
      '  ELSIF p_id IS NULL THEN',
      '    WITH x AS (SELECT 1) DELETE FROM labels WHERE business_id = p_business;',
      '  END IF;',
      '  SELECT count(*) INTO n FROM accounts a JOIN customers c ON c.wallet_id = a.id WHERE a.business_id = p_business;',
      '  INSERT INTO labels (id, business_id, name) VALUES (gen_random_uuid(), p_business, now()::text);',
      "  INSERT INTO labels (id, business_id) VALUES (p_id, coalesce(p_business, '00000000-0000-0000-0000-000000000000'));",
      '  UPDATE accounts SET name = random()::text WHERE id = p_id;',
      '  FOR n IN SELECT 1 FROM accounts WHERE id = p_id LOOP',
      '    NULL;',
      '  END LOOP;',
      'END $$;',
    ].join('\n');
    const functions = sqlFunctions('fake/sql/fake.sql', sample);
    const schema = { tables: ALL_TABLES, tenants: TENANTS, volatile: new Set(VOLATILE_BUILTINS) };
    const found = offences(functions, new Set(['good', 'bad']), schema);
    expect(found.filter((o) => o.function === 'good').map(described), 'the fast-path function').to.deep.equal([]);
    expect(found.map((o) => `${o.statement.slice(0, 40)} — ${o.rules.join('; ')}`)).to.deep.equal([
      'SELECT (SELECT count(*) FROM labels WHER — a sublink; no `business_id = <parameter or variable>` at its top level',
      'SELECT NOT EXISTS (SELECT 1 FROM account — a sublink; no `business_id = <parameter or variable>` at its top level',
      'SELECT (SELECT count(*) FROM labels WHER — a sublink; no `business_id = <parameter or variable>` at its top level',
      'WITH x AS (SELECT 1) DELETE FROM labels  — a CTE; a sublink',
      'SELECT count(*) INTO n FROM accounts a J — names 2 tables (accounts, customers); a join',
      'INSERT INTO labels (id, business_id, nam — calls volatile gen_random_uuid(); a write that reads the clock',
      "INSERT INTO labels (id, business_id) VAL — no parameter or variable as its business_id value",
      'UPDATE accounts SET name = random()::tex — calls volatile random(); no `business_id = <parameter or variable>` at its top level',
      'SELECT 1 FROM accounts WHERE id = p_id — no `business_id = <parameter or variable>` at its top level',
    ]);
    expect(offences(functions, new Set(['good']), schema), 'a function no worker runs is not judged').to.deep.equal([]);
  });

  it('finds the functions a worker runs: the delegated, the trigger functions, and what they call', () => {
    const functions = sqlFunctions(
      'fake/sql/fake.sql',
      [
        'CREATE FUNCTION a(p_business uuid) RETURNS void LANGUAGE plpgsql AS $$ BEGIN PERFORM b(1); END $$;',
        'CREATE FUNCTION b(p int) RETURNS void LANGUAGE sql AS $$ SELECT c() $$;',
        'CREATE FUNCTION c() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;',
        'CREATE FUNCTION t() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;',
        'CREATE FUNCTION coordinator(p_scope text) RETURNS void LANGUAGE plpgsql AS $$ BEGIN PERFORM a(NULL); END $$;',
      ].join('\n'),
    );
    expect([...workerFunctions(functions, ['a'])].sort()).to.deep.equal(['a', 'b', 'c', 't']);
  });
});
