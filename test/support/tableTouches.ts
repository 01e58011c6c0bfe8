/**
 * The scanner of table touches: which room of src/ reads or writes which table, found in
 * the source itself (used by test/platform/database/tableOwnership.test.ts, which judges
 * the touches against src/db/tableOwners.ts). A touch is a TableTouch: the room of its file
 * (`src/<room>/…`), the table, `read` or `write`, the file and line, and what was matched.
 *
 * A touch is found in two kinds of text:
 *
 * - SQL: every `src/**\/sql/*.sql` file, and every string literal and template string of
 *   a `.ts` file (raw SQL given to `db.raw(…)`, `whereRaw(…)`, `trx.raw(…)` and the like;
 *   a `${…}` substitution is blanked and scanned as code). Comments (`-- …`, `/* … *\/`)
 *   are blanked first. A write is `INSERT INTO t`, `UPDATE t`, `DELETE FROM t`,
 *   `MERGE INTO t`, `COPY t`, `TRUNCATE t`, `ALTER TABLE t`, `LOCK TABLE t`, or a trigger
 *   created or dropped `ON t`; a read is `FROM t` (and every table of a comma-separated
 *   FROM list), `JOIN t`, `USING t`, or a PL/pgSQL use of t's row type (a variable or
 *   parameter of type `t` or `t%ROWTYPE`, `RETURNS [SETOF] t`). Keywords match in any case.
 *   A name qualified by another schema than `public` (`pgboss.job`) is not the service's.
 * - Knex, in the code of a `.ts` file (TypeScript comments are not code): a builder
 *   `x('t')` or `x('t as a')` (any callee but the few in NOT_BUILDERS), `.from('t')`,
 *   `.into('t')`, `.table('t')`: a write when its chain (the calls before and after it in
 *   the same expression, and, when the chain is kept in a variable, the chains of that
 *   variable's later uses in the same function) or the rest of its statement calls one
 *   of WRITE_METHODS, a read otherwise; `.join('t…')`, `.leftJoin('t…')` and the other
 *   joins are reads; a library given its table (`tableName: 't'`) writes it.
 *
 * Only names the caller gives as tables count (anything else matched, such as a column, a
 * function or an alias, is not a table); a CTE's name (`WITH name AS (`, `, name AS (`) is
 * dropped even when a table has that name, within the one SQL text that defines it. The
 * scanner errs on finding too much (the statement rule may call a read nested in a write's
 * statement a write; an English string saying "from customers" would be taken for SQL):
 * each touch carries its file and line, so that a report names where to look.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Whether a touch reads or writes its table. */
export type TouchKind = 'read' | 'write';

/** A source file to scan: its path from the repository root (`src/<room>/…`) and its text. */
export interface ScannedFile {
  path: string;
  text: string;
}

/** One touch of a table, in the file and line it was found at. */
export interface TableTouch {
  /** The room of the file (`src/<room>/…`). */
  room: string;
  table: string;
  kind: TouchKind;
  /** The file's path from the repository root. */
  file: string;
  /** 1-based. */
  line: number;
  /** What was matched (the SQL words or the Knex call), for reports. */
  evidence: string;
}

/** A touch found in one text, at an offset of that text. */
export interface TextTouch {
  table: string;
  kind: TouchKind;
  offset: number;
  evidence: string;
}

/** Knex methods that make a builder's statement a write. */
export const WRITE_METHODS: ReadonlySet<string> = new Set([
  'insert',
  'update',
  'del',
  'delete',
  'increment',
  'decrement',
  'upsert',
  'onConflict',
  'merge',
  'truncate',
]);

/** Knex join methods: `.join('t as a', …)` reads `t`. */
const JOIN_METHODS: ReadonlySet<string> = new Set([
  'join',
  'innerJoin',
  'leftJoin',
  'leftOuterJoin',
  'rightJoin',
  'rightOuterJoin',
  'outerJoin',
  'fullOuterJoin',
  'crossJoin',
]);

/** Knex methods naming the builder's table after its start: `db.insert(…).into('t')`. */
const TARGET_METHODS: ReadonlySet<string> = new Set(['from', 'into', 'table']);

/**
 * Callees whose one string argument is a column, a CTE's name or a value, never the table
 * of a new builder: without them a column that happens to be named like a table would be
 * taken for one. Everything else called with a table's name alone counts as a builder.
 */
const NOT_BUILDERS: ReadonlySet<string> = new Set([
  'select', 'first', 'pluck', 'column', 'columns', 'returning', 'distinct', 'distinctOn',
  'where', 'andWhere', 'orWhere', 'whereNot', 'whereIn', 'whereNotIn', 'whereNull', 'whereNotNull',
  'orderBy', 'groupBy', 'count', 'countDistinct', 'sum', 'min', 'max', 'avg', 'increment', 'decrement',
  'with', 'withRecursive', 'withMaterialized', 'withNotMaterialized', 'as', 'on', 'andOn', 'orOn', 'onIn',
  'hasTable', 'hasColumn', 'ref',
]);

/** A table name, optionally schema-qualified and double-quoted; group 1 the schema, group 2 the name. */
const NAME = String.raw`(?:"?([A-Za-z_][A-Za-z0-9_$]*)"?\s*\.\s*)?"?([A-Za-z_][A-Za-z0-9_$]*)"?`;

/** SQL statements that write their table, each followed by the table's name. */
const SQL_WRITES: readonly RegExp[] = [
  new RegExp(String.raw`\bINSERT\s+INTO\s+${NAME}`, 'gid'),
  new RegExp(String.raw`\bUPDATE\s+(?:ONLY\s+)?${NAME}`, 'gid'),
  new RegExp(String.raw`\bDELETE\s+FROM\s+(?:ONLY\s+)?${NAME}`, 'gid'),
  new RegExp(String.raw`\bMERGE\s+INTO\s+(?:ONLY\s+)?${NAME}`, 'gid'),
  new RegExp(String.raw`\bCOPY\s+${NAME}`, 'gid'),
  new RegExp(String.raw`\bTRUNCATE\s+(?:TABLE\s+)?(?:ONLY\s+)?${NAME}`, 'gid'),
  new RegExp(String.raw`\bALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?${NAME}`, 'gid'),
  new RegExp(String.raw`\bLOCK\s+(?:TABLE\s+)?(?:ONLY\s+)?${NAME}`, 'gid'),
  new RegExp(String.raw`\b(?:CREATE|DROP)\s+(?:OR\s+REPLACE\s+)?(?:CONSTRAINT\s+)?TRIGGER\b[^;]*?\bON\s+${NAME}`, 'gid'),
];

/** SQL clauses that read their table. */
const SQL_READS: readonly RegExp[] = [
  new RegExp(String.raw`\bJOIN\s+(?:LATERAL\s+)?(?:ONLY\s+)?${NAME}`, 'gid'),
  new RegExp(String.raw`\bUSING\s+${NAME}`, 'gid'),
];

/**
 * PL/pgSQL uses of a table's row type, which tie the code to the table's shape as a read
 * does: `v t;` or `v t := …` declared (after DECLARE or a previous declaration's `;`),
 * `t%ROWTYPE`, and `RETURNS [SETOF] t`. (A function's parameters are found by ROW_PARAMETER.)
 */
const SQL_ROW_TYPES: readonly RegExp[] = [
  new RegExp(String.raw`(?:\bDECLARE\b|;)\s*[A-Za-z_][A-Za-z0-9_]*\s+(?:CONSTANT\s+)?${NAME}\s*(?=;|:=|=|\bDEFAULT\b|\bNOT\b)`, 'gid'),
  new RegExp(String.raw`${NAME}\s*%\s*ROWTYPE\b`, 'gid'),
  new RegExp(String.raw`\bRETURNS\s+(?:SETOF\s+)?${NAME}`, 'gid'),
];

/** A function's parameter list: `FUNCTION name(`, up to its matching `)` (found by hand). */
const FUNCTION_START = /\bFUNCTION\s+(?:"?[A-Za-z_][A-Za-z0-9_]*"?\s*\.\s*)?"?[A-Za-z_][A-Za-z0-9_]*"?\s*\(/gi;

/** One parameter of a row type: `[IN|OUT|INOUT|VARIADIC] [name] t[%ROWTYPE]`, then `,`, `)` or DEFAULT. */
const ROW_PARAMETER = new RegExp(String.raw`(?:^|,)\s*(?:(?:IN|OUT|INOUT|VARIADIC)\s+)?(?:[A-Za-z_][A-Za-z0-9_]*\s+)?${NAME}(?:\s*%\s*ROWTYPE)?\s*(?=,|$|\bDEFAULT\b|=)`, 'gid');

/** `FROM` and the first item of its list. */
const SQL_FROM = new RegExp(String.raw`\bFROM\s+(?:ONLY\s+)?${NAME}`, 'gid');

/** Words that end a FROM item instead of naming its alias. */
const NOT_ALIAS = /^(?:WHERE|JOIN|ON|USING|GROUP|ORDER|LIMIT|OFFSET|FOR|WINDOW|HAVING|UNION|INTERSECT|EXCEPT|INNER|LEFT|RIGHT|FULL|CROSS|NATURAL|LATERAL|RETURNING|INTO|SET|THEN|LOOP|WITH|TABLESAMPLE)$/i;

/** A CTE's definition: `WITH [RECURSIVE] name [(cols)] AS [NOT] [MATERIALIZED] (` or `, name AS (`. */
const CTE = /(?:\bWITH(?:\s+RECURSIVE)?|,)\s*"?([A-Za-z_][A-Za-z0-9_]*)"?\s*(?:\([^()]*\)\s*)?AS\s+(?:(?:NOT\s+)?MATERIALIZED\s+)?\(/gi;

/** Schemas whose tables are the service's own when a name is qualified. */
const OWN_SCHEMAS: ReadonlySet<string> = new Set(['public']);

/**
 * `sql` with its comments (`-- …` to the end of the line, `/* … *\/`, nested) blanked out,
 * newlines and length kept, so that offsets still point into the original. Single-quoted
 * strings are kept (dynamic SQL lives in them) but their `--` starts no comment.
 */
export function blankSqlComments(sql: string): string {
  const out = sql.split('');
  let i = 0;
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  while (i < sql.length) {
    const c = sql[i];
    if (c === "'") {
      i++;
      while (i < sql.length) {
        if (sql[i] === "'" && sql[i + 1] === "'") i += 2;
        else if (sql[i] === "'") break;
        else i++;
      }
      i++;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const to = end < 0 ? sql.length : end;
      blank(i, to);
      i = to;
    } else if (c === '/' && sql[i + 1] === '*') {
      let depth = 0;
      let k = i;
      while (k < sql.length) {
        if (sql[k] === '/' && sql[k + 1] === '*') {
          depth++;
          k += 2;
        } else if (sql[k] === '*' && sql[k + 1] === '/') {
          depth--;
          k += 2;
          if (depth === 0) break;
        } else k++;
      }
      blank(i, k);
      i = k;
    } else i++;
  }
  return out.join('');
}

/**
 * The touches of the tables in `tables` in one SQL text (comments are ignored): each with
 * its kind and the offset of the table's name in `sql`. A name qualified by a schema other
 * than `public`, a name that is not in `tables`, and a CTE's name are not touches.
 */
export function sqlTouches(sql: string, tables: ReadonlySet<string>): TextTouch[] {
  const text = blankSqlComments(sql);
  const ctes = new Set([...text.matchAll(CTE)].map((m) => m[1].toLowerCase()));
  const found = new Map<number, TextTouch>();
  const add = (m: RegExpExecArray | RegExpMatchArray, kind: TouchKind, base = 0) => {
    const schema = m[1];
    const name = m[2].toLowerCase();
    if (schema && !OWN_SCHEMAS.has(schema.toLowerCase())) return;
    if (!tables.has(name) || ctes.has(name)) return;
    const offset = base + (m as RegExpExecArray & { indices: [number, number][] }).indices[2][0];
    const prior = found.get(offset);
    if (prior && prior.kind === 'write') return;
    found.set(offset, { table: name, kind, offset, evidence: m[0].replace(/\s+/g, ' ').trim().slice(0, 120) });
  };
  for (const re of SQL_WRITES) for (const m of text.matchAll(re)) add(m, 'write');
  for (const re of SQL_READS) for (const m of text.matchAll(re)) add(m, 'read');
  for (const re of SQL_ROW_TYPES) for (const m of text.matchAll(re)) add(m, 'read');
  for (const f of text.matchAll(FUNCTION_START)) {
    const open = (f.index ?? 0) + f[0].length;
    let depth = 1;
    let close = open;
    while (close < text.length && depth > 0) {
      if (text[close] === '(') depth++;
      else if (text[close] === ')') depth--;
      close++;
    }
    const parameters = text.slice(open, close - 1);
    for (const m of parameters.matchAll(ROW_PARAMETER)) add(m, 'read', open);
  }
  for (const m of text.matchAll(SQL_FROM)) {
    add(m, 'read'); // no second touch where a write (`DELETE FROM t`) already is
    for (const item of laterFromItems(text, (m.index ?? 0) + m[0].length)) add(item, 'read');
  }
  return [...found.values()].sort((a, b) => a.offset - b.offset);
}

/**
 * The items after the first of a comma-separated FROM list, from `at` (just after the first
 * item's name): each item is skipped over (a call's or subquery's parentheses, an alias and
 * its column list), and after a comma the next item's name is matched as a NAME (group 1 the
 * schema, 2 the name, with their indices). The list ends at anything but a comma.
 */
function laterFromItems(text: string, at: number): RegExpExecArray[] {
  const items: RegExpExecArray[] = [];
  const word = /^\s*"?([A-Za-z_][A-Za-z0-9_]*)"?/;
  let k = at;
  const skipSpace = () => {
    while (k < text.length && /\s/.test(text[k])) k++;
  };
  const skipParens = () => {
    skipSpace();
    if (text[k] !== '(') return false;
    let depth = 0;
    for (; k < text.length; k++) {
      if (text[k] === '(') depth++;
      else if (text[k] === ')' && --depth === 0) {
        k++;
        return true;
      }
    }
    return true;
  };
  for (;;) {
    skipParens(); // the arguments of a function in FROM
    const as = /^\s*AS\b/i.exec(text.slice(k));
    if (as) k += as[0].length;
    const alias = word.exec(text.slice(k));
    if (alias && !NOT_ALIAS.test(alias[1])) {
      k += alias[0].length;
      skipParens(); // an alias's column list
    }
    skipSpace();
    if (text[k] !== ',') return items;
    k++;
    const next = new RegExp(String.raw`^\s*(?:(?:ONLY|LATERAL)\s+)?${NAME}`, 'id').exec(text.slice(k));
    if (!next) {
      if (!skipParens()) return items; // a subquery item: its own FROM is matched on its own
      continue;
    }
    const indices = (next as RegExpExecArray & { indices: [number, number][] }).indices;
    for (const pair of indices) if (pair) (pair[0] += k), (pair[1] += k);
    items.push(next);
    k += next[0].length;
  }
}

/** The name of a call's callee: an identifier, or the property of `x.name(…)`. */
function calleeName(call: ts.CallExpression): string | undefined {
  const e = call.expression;
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return undefined;
}

/** The table named by a string argument `'t'` or `'t as a'` (`'public.t'` too), if it names one. */
function tableArgument(arg: ts.Expression | undefined, tables: ReadonlySet<string>): string | undefined {
  if (!arg || !(ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg))) return undefined;
  const m = /^\s*(?:(\w+)\.)?(\w+)(?:\s+(?:as\s+)?\w+)?\s*$/i.exec(arg.text);
  if (!m || (m[1] && !OWN_SCHEMAS.has(m[1].toLowerCase()))) return undefined;
  const name = m[2].toLowerCase();
  return tables.has(name) ? name : undefined;
}

/** The method names of the chain `node` is part of: the calls before it (its callee's receivers) and after it. */
function chainMethods(node: ts.Expression): { names: string[]; top: ts.Expression } {
  const names: string[] = [];
  let down: ts.Expression = node;
  for (;;) {
    if (ts.isCallExpression(down)) down = down.expression;
    else if (ts.isPropertyAccessExpression(down)) {
      names.push(down.name.text);
      down = down.expression;
    } else if (ts.isNonNullExpression(down) || ts.isParenthesizedExpression(down)) down = down.expression;
    else break;
  }
  let top: ts.Expression = node;
  for (;;) {
    const p = top.parent;
    if (!p) break;
    if (ts.isPropertyAccessExpression(p) && p.expression === top) {
      names.push(p.name.text);
      top = p;
    } else if ((ts.isCallExpression(p) && p.expression === top) || ts.isNonNullExpression(p) || ts.isParenthesizedExpression(p)) {
      top = p;
    } else break;
  }
  return { names, top };
}

/** The nearest enclosing statement of `node` (or the source file). */
function enclosingStatement(node: ts.Node): ts.Node {
  let n: ts.Node = node;
  while (n.parent && !ts.isSourceFile(n.parent) && !ts.isBlock(n.parent) && !ts.isModuleBlock(n.parent) && !ts.isCaseClause(n.parent) && !ts.isDefaultClause(n.parent)) n = n.parent;
  return n;
}

/** The function (or file) whose body holds `node`. */
function enclosingScope(node: ts.Node): ts.Node {
  let n: ts.Node | undefined = node.parent;
  while (n && !ts.isFunctionLike(n) && !ts.isSourceFile(n)) n = n.parent;
  return n ?? node.getSourceFile();
}

/**
 * Whether the builder `call` writes: its chain calls one of WRITE_METHODS; or the rest of
 * its statement, from the builder on, does (`.insert(` … in the code after it); or its chain
 * is kept in a variable (`const q = db('t')…`, `q = …`) one of whose later uses in the
 * same function does.
 */
function builderWrites(call: ts.CallExpression, file: ts.SourceFile): boolean {
  const { names, top } = chainMethods(call);
  if (names.some((n) => WRITE_METHODS.has(n))) return true;
  const statement = enclosingStatement(call);
  const rest = codeOnly(file.text.slice(call.getStart(file), statement.end));
  for (const w of WRITE_METHODS) if (new RegExp(String.raw`\.\s*${w}\s*\(`).test(rest)) return true;
  let holder: string | undefined;
  const p = top.parent;
  if (p && ts.isVariableDeclaration(p) && p.initializer === top && ts.isIdentifier(p.name)) holder = p.name.text;
  if (p && ts.isBinaryExpression(p) && p.right === top && p.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isIdentifier(p.left)) holder = p.left.text;
  if (!holder) return false;
  let writes = false;
  const visit = (n: ts.Node): void => {
    if (writes) return;
    if (ts.isIdentifier(n) && n.text === holder && n.getStart(file) > call.getStart(file)) {
      if (chainMethods(n).names.some((m) => WRITE_METHODS.has(m))) writes = true;
    }
    n.forEachChild(visit);
  };
  visit(enclosingScope(call));
  return writes;
}

/** `code` with its string literals' and comments' contents blanked (a rough lexer, for the statement rule). */
function codeOnly(code: string): string {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, code);
  let out = '';
  for (let k = scanner.scan(); k !== ts.SyntaxKind.EndOfFileToken; k = scanner.scan()) {
    const t = scanner.getTokenText();
    if (k === ts.SyntaxKind.StringLiteral || k === ts.SyntaxKind.NoSubstitutionTemplateLiteral || k === ts.SyntaxKind.TemplateHead) out += ' "" ';
    else if (k === ts.SyntaxKind.SingleLineCommentTrivia || k === ts.SyntaxKind.MultiLineCommentTrivia) out += ' ';
    else out += t;
  }
  return out;
}

/**
 * The raw text of a string literal or template string of `file`, with every `${…}`
 * substitution blanked (its code is scanned on its own), offsets kept.
 */
function literalText(node: ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateExpression, file: ts.SourceFile): string {
  const start = node.getStart(file);
  const chars = file.text.slice(start, node.end).split('');
  if (ts.isTemplateExpression(node)) {
    for (const span of node.templateSpans) {
      for (let k = span.expression.getFullStart() - start; k < span.expression.end - start; k++) if (chars[k] !== '\n') chars[k] = ' ';
    }
  }
  return chars.join('');
}

/**
 * The touches of the tables in `tables` in one TypeScript text: the SQL of its string
 * literals and template strings, and its Knex builders and joins (see the module's doc).
 * Comments are not scanned; module specifiers of imports and exports are not SQL.
 */
export function tsTouches(fileName: string, text: string, tables: ReadonlySet<string>): TextTouch[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const touches: TextTouch[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      node.forEachChild((c) => (c === node.moduleSpecifier ? undefined : visit(c)));
      return;
    }
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
      const start = node.getStart(file);
      for (const t of sqlTouches(literalText(node, file), tables)) touches.push({ ...t, offset: start + t.offset });
    }
    if (ts.isCallExpression(node)) {
      const name = calleeName(node);
      const table = tableArgument(node.arguments[0], tables);
      if (table && name !== undefined) {
        const evidence = `${ts.isPropertyAccessExpression(node.expression) ? '.' : ''}${name}(${node.arguments[0].getText(file)})`;
        const offset = node.arguments[0].getStart(file) + 1;
        if (JOIN_METHODS.has(name) && ts.isPropertyAccessExpression(node.expression)) {
          touches.push({ table, kind: 'read', offset, evidence });
        } else if (TARGET_METHODS.has(name) && ts.isPropertyAccessExpression(node.expression)) {
          touches.push({ table, kind: builderWrites(node, file) ? 'write' : 'read', offset, evidence });
        } else if (!NOT_BUILDERS.has(name) && !JOIN_METHODS.has(name) && !TARGET_METHODS.has(name) && node.arguments.length === 1) {
          touches.push({ table, kind: builderWrites(node, file) ? 'write' : 'read', offset, evidence });
        }
      }
    }
    // A library given its table (rate-limiter-flexible's `tableName: 'rate_limits'`) writes it.
    if (ts.isPropertyAssignment(node) && /^(tableName|table)$/.test(node.name.getText(file))) {
      const table = tableArgument(node.initializer, tables);
      if (table) touches.push({ table, kind: 'write', offset: node.initializer.getStart(file) + 1, evidence: node.getText(file) });
    }
    node.forEachChild(visit);
  };
  visit(file);
  return touches.sort((a, b) => a.offset - b.offset);
}

/**
 * The room of a file of src/: the folder under src/ (`src/cards/otp.ts` → `cards`);
 * undefined for the files at src/'s top level (the service's assembly: src/server.ts,
 * src/main.ts, src/config.ts …) and for paths outside src/.
 */
export function roomOf(filePath: string): string | undefined {
  const parts = filePath.split('/');
  return parts[0] === 'src' && parts.length > 2 ? parts[1] : undefined;
}

/** 1-based line of `offset` in `text`. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let k = 0; k < offset && k < text.length; k++) if (text.charCodeAt(k) === 10) line++;
  return line;
}

/**
 * Every touch of the tables in `tables` in `files` (`.ts` and `.sql`), each with the room of
 * its file, in file and line order; files of no room (src/'s top level) are skipped.
 */
export function scanTouches(files: readonly ScannedFile[], tables: ReadonlySet<string>): TableTouch[] {
  const touches: TableTouch[] = [];
  for (const f of files) {
    const room = roomOf(f.path);
    if (!room) continue;
    const found = f.path.endsWith('.sql') ? sqlTouches(f.text, tables) : f.path.endsWith('.ts') ? tsTouches(f.path, f.text, tables) : [];
    for (const t of found) touches.push({ room, table: t.table, kind: t.kind, file: f.path, line: lineAt(f.text, t.offset), evidence: t.evidence });
  }
  return touches;
}

/**
 * The service's source files to scan, read from `root` (the repository): every `src/**\/*.ts`
 * and every `src/**\/sql/*.sql`, but the portal's browser files (src/portal/assets/) and any
 * generated folder; and, when `skip` says so, others (by path from the root).
 */
export function serviceSources(root: string, skip: (filePath: string) => boolean = () => false): ScannedFile[] {
  const files: ScannedFile[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) {
        if (rel === 'src/portal/assets' || e.name === 'generated' || e.name === 'node_modules') continue;
        walk(rel);
      } else if ((e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) || (e.name.endsWith('.sql') && dir.endsWith('/sql'))) {
        if (!skip(rel)) files.push({ path: rel, text: readFileSync(path.join(root, rel), 'utf8') });
      }
    }
  };
  walk('src');
  return files.sort((a, b) => a.path.localeCompare(b.path));
}
