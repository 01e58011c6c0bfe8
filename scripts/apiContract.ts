/**
 * The breaking-change gate and the API changelog (scripts/api.ts runs them; the
 * tests in test/contract/apiDiff.test.ts and changelog.test.ts call them).
 *
 * The released documents are openapi/released/<version>/<document>.json: each supported
 * version's documents as that version served them at the last release
 * (src/http/versions.ts servedDocument). compareDocuments() diffs a released document
 * with a revision by `redocly diff` (rules: openapi/diff.redocly.yaml), excuses the
 * changes openapi/diff-exceptions.yaml lists, and adds what the tool does not see: a
 * changed operationId and a removed (or renamed) component schema, which change every
 * generated SDK even when the wire is the same.
 *
 * Kinds: `breaking` (a client built against the release can fail: the gate refuses it),
 * `additive` (something new) and `documentation` (descriptions, examples, summaries).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { servedDocument, SUPPORTED_API_VERSIONS, type ApiVersion } from '../src/http/versions.js';

const run = promisify(execFile);

export const ROOT = path.resolve(import.meta.dirname, '..');
export const DOCUMENTS = ['closed-loop', 'core'] as const;
export type DocumentName = (typeof DOCUMENTS)[number];
export const RELEASED_DIR = path.join(ROOT, 'openapi', 'released');
export const CHANGELOG = path.join(ROOT, 'openapi', 'CHANGELOG.md');
const REDOCLY = path.join(ROOT, 'node_modules', '.bin', 'redocly');
const DIFF_CONFIG = path.join(ROOT, 'openapi', 'diff.redocly.yaml');
const EXCEPTIONS = path.join(ROOT, 'openapi', 'diff-exceptions.yaml');

export type ChangeKind = 'breaking' | 'additive' | 'documentation';

/** One change between a released document and its revision. */
export interface Change {
  kind: ChangeKind;
  /** Where, for people: `POST /webhooks requestBody/…/secret · maxLength`, or a JSON pointer. */
  where: string;
  /** What happened, e.g. "`maxLength` changed from '200' to '90'." (the tool's message when it has one). */
  what: string;
  /** The rule that rated it (`redocly diff`'s, or `operation-id` / `component-schema` of this module). */
  rule?: string;
  /** JSON pointer in the document that has the change (the revision's; the release's for a removal). */
  pointer: string;
  /** Why a change the tool rated major is not breaking (diff-exceptions.yaml). */
  excused?: string;
}

interface RedoclyLocation {
  file: string;
  pointer: string;
  line: number;
  col: number;
}
interface RedoclyChange {
  path: string;
  kind: 'added' | 'removed' | 'modified';
  impact: 'major' | 'minor' | 'patch';
  property?: string;
  verdicts: { ruleId: string; impact: string; message: string; location: RedoclyLocation }[];
  base?: RedoclyLocation & { value?: unknown };
  revision?: RedoclyLocation & { value?: unknown };
}
interface Exception {
  rule: string;
  property: string;
  from: string;
  to: string;
  reason: string;
}

type Json = Record<string, unknown>;

const KIND_OF_IMPACT: Record<RedoclyChange['impact'], ChangeKind> = { major: 'breaking', minor: 'additive', patch: 'documentation' };
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The segments of a JSON pointer (`#/a/b~1c` → ['a', 'b/c']). */
function segments(pointer: string): string[] {
  return pointer
    .replace(/^#?\/?/, '')
    .split('/')
    .filter((s) => s !== '')
    .map((s) => decodeURIComponent(s).replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** `#/components/parameters/X` of `doc` for a `$ref`, else `value` itself. */
function resolveRef(doc: Json | undefined, value: unknown): Json | undefined {
  const ref = (value as Json | undefined)?.$ref;
  if (typeof ref !== 'string' || !doc) return value as Json | undefined;
  return segments(ref).reduce<unknown>((node, key) => (node as Json | undefined)?.[key], doc) as Json | undefined;
}

/**
 * Where a pointer is, for people: `POST /webhooks requestBody/content/…` under an operation
 * (`GET /events parameters/6 (query \`status\`)` when `doc` names the parameter), `webhook
 * payout.pending POST …` under a webhook, else the pointer.
 */
function describePointer(pointer: string, property?: string, doc?: Json): string {
  const [top, p, method, ...rest] = segments(pointer);
  let where = pointer.replace(/^#/, '') || '/';
  if ((top === 'paths' || top === 'webhooks') && p !== undefined && method && METHODS.includes(method)) {
    if (rest[0] === 'parameters' && rest[1] !== undefined) {
      const params = ((((doc?.[top] as Json | undefined)?.[p] as Json | undefined)?.[method] as Json | undefined)?.parameters ?? []) as unknown[];
      const param = resolveRef(doc, params[Number(rest[1])]);
      if (param && typeof param.name === 'string') rest[1] = `${rest[1]} (${String(param.in)} \`${param.name}\`)`;
    }
    const at = `${method.toUpperCase()} ${p}${rest.length ? ` ${rest.join('/')}` : ''}`;
    where = top === 'paths' ? at : `webhook ${at}`;
  } else if (top === 'paths' && p !== undefined) where = `${p}${method ? ` ${[method, ...rest].join('/')}` : ''}`;
  return property ? `${where} · ${property}` : where;
}

/** A path as a JSON pointer segment (`/a/{b}` → `~1a~1{b}`). */
const pointerSegment = (p: string): string => p.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * `change` (the tool's `diffKind` of it) as the changelog names it: an added or removed
 * path item becomes one change per operation it holds, and an added or removed operation
 * says its operationId, so that each entry names the method and path a client calls (and
 * the SDK method). Any other change is returned as it is.
 */
function perOperation(change: Change, diffKind: RedoclyChange['kind'], base: Json, revision: Json): Change[] {
  const [top, p, method, ...rest] = segments(change.pointer);
  if (top !== 'paths' || p === undefined || rest.length > 0 || diffKind === 'modified') return [change];
  if (method !== undefined && !METHODS.includes(method)) return [change];
  const doc = diffKind === 'removed' ? base : revision;
  const item = ((doc.paths ?? {}) as Json)[p] as Json | undefined;
  const methods = method !== undefined ? [method] : METHODS.filter((m) => item?.[m]);
  if (methods.length === 0) return [change];
  const ids = operationIds(doc);
  return methods.map((m) => {
    const operationId = ids.get(`${m} ${p}`);
    const what = `Operation ${diffKind}${operationId ? ` (operationId \`${operationId}\`)` : ''}${method === undefined ? `, with its path` : ''}.`;
    return { ...change, where: `${m.toUpperCase()} ${p}`, what, pointer: `#/paths/${pointerSegment(p)}/${m}` };
  });
}

function loadExceptions(): Exception[] {
  return (parse(readFileSync(EXCEPTIONS, 'utf8')) as Exception[] | null) ?? [];
}

/** The exception that excuses verdict `ruleId` on `change`, if any. */
function exceptionFor(change: RedoclyChange, ruleId: string, exceptions: Exception[]): Exception | undefined {
  return exceptions.find(
    (e) => e.rule === ruleId && e.property === change.property && change.base?.value === e.from && change.revision?.value === e.to,
  );
}

/** Runs `redocly diff` on two files and returns its changes (JSON report). Throws when the tool fails. */
async function redoclyDiff(baseFile: string, revisionFile: string, workDir: string): Promise<RedoclyChange[]> {
  const out = path.join(workDir, `diff-${path.basename(path.dirname(revisionFile))}-${path.basename(revisionFile)}`);
  try {
    await run(REDOCLY, ['diff', baseFile, revisionFile, '--format=json', `--output=${out}`, '--fail-on=none', `--config=${DIFF_CONFIG}`], {
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true', NO_COLOR: '1' },
    });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`redocly diff ${baseFile} ${revisionFile} failed: ${e.stderr || e.message}`);
  }
  return (JSON.parse(readFileSync(out, 'utf8')) as { changes: RedoclyChange[] }).changes;
}

/** operationId by `METHOD path` of a document. */
function operationIds(doc: Json): Map<string, string> {
  const ids = new Map<string, string>();
  for (const [p, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item?.[method] as Json | undefined;
      if (op && typeof op.operationId === 'string') ids.set(`${method} ${p}`, op.operationId);
    }
  }
  return ids;
}

/** What `redocly diff` does not see: changed operationIds and removed or renamed component schemas. */
function sdkChanges(base: Json, revision: Json): Change[] {
  const changes: Change[] = [];
  const before = operationIds(base);
  const after = operationIds(revision);
  for (const [key, id] of before) {
    const now = after.get(key);
    if (now === undefined || now === id) continue; // a removed operation is the tool's (operation-removed)
    const [method, p] = key.split(' ');
    const pointer = `#/paths/${pointerSegment(p)}/${method}/operationId`;
    changes.push({ kind: 'breaking', where: describePointer(pointer), what: `operationId changed from '${id}' to '${now}' (every generated SDK renames the method).`, rule: 'operation-id', pointer });
  }
  const schemas = (doc: Json) => Object.keys(((doc.components as Json | undefined)?.schemas ?? {}) as Json);
  const kept = new Set(schemas(revision));
  for (const name of schemas(base)) {
    if (kept.has(name)) continue;
    const pointer = `#/components/schemas/${name}`;
    changes.push({ kind: 'breaking', where: pointer.slice(1), what: `Component schema \`${name}\` was removed or renamed (every generated SDK loses the type).`, rule: 'component-schema', pointer });
  }
  return changes;
}

/**
 * The changes from the document in `baseFile` to the one in `revisionFile` (bundled
 * JSON), classified. Throws when `redocly diff` cannot run.
 */
export async function compareDocuments(baseFile: string, revisionFile: string, workDir: string): Promise<Change[]> {
  const exceptions = loadExceptions();
  const base = JSON.parse(readFileSync(baseFile, 'utf8')) as Json;
  const revision = JSON.parse(readFileSync(revisionFile, 'utf8')) as Json;
  const changes: Change[] = [];
  for (const c of await redoclyDiff(baseFile, revisionFile, workDir)) {
    const pointer = (c.kind === 'removed' ? c.base?.pointer : c.revision?.pointer) ?? c.path;
    const where = describePointer(c.path, c.kind === 'modified' ? c.property : undefined, c.kind === 'removed' ? base : revision);
    const majors = c.verdicts.filter((v) => v.impact === 'major');
    const unexcused = majors.filter((v) => !exceptionFor(c, v.ruleId, exceptions));
    let kind = KIND_OF_IMPACT[c.impact];
    let excused: string | undefined;
    if (kind === 'breaking' && unexcused.length === 0) {
      kind = 'additive';
      excused = majors.map((v) => exceptionFor(c, v.ruleId, exceptions)!.reason).join(' ');
    }
    const shown = kind === 'breaking' ? unexcused : c.verdicts;
    const what = shown.length
      ? shown.map((v) => v.message).join(' ')
      : c.kind === 'modified'
        ? `\`${c.property}\` changed.`
        : `${c.kind === 'added' ? 'Added' : 'Removed'}.`;
    // The pointer of the path item or operation the tool names, for perOperation.
    changes.push(...perOperation({ kind, where, what, rule: shown.map((v) => v.ruleId).join(', ') || undefined, pointer: c.path, excused }, c.kind, base, revision).map((e) => (e.pointer === c.path ? { ...e, pointer } : e)));
  }
  // The tool reports a changed operationId itself (operation-id-changed); ours backs it up.
  const seen = new Set(changes.filter((c) => c.rule?.includes('operation-id-changed')).map((c) => c.pointer.replace(/^#/, '')));
  changes.push(...sdkChanges(base, revision).filter((c) => !(c.rule === 'operation-id' && seen.has(c.pointer.replace(/^#/, '')))));
  return changes;
}

/** Bundles the source documents (openapi/*.yaml) into `dir`/<document>.json, as `npm run generate` does. */
export async function bundleSources(dir: string): Promise<Record<DocumentName, Json>> {
  mkdirSync(dir, { recursive: true });
  const bundles = {} as Record<DocumentName, Json>;
  await Promise.all(
    DOCUMENTS.map(async (name) => {
      const out = path.join(dir, `${name}.json`);
      await run(REDOCLY, ['bundle', `openapi/${name}.yaml`, '--ext', 'json', '-o', out], { cwd: ROOT, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' } });
      bundles[name] = JSON.parse(readFileSync(out, 'utf8')) as Json;
    }),
  );
  return bundles;
}

/** The released document of `version` (openapi/released/<version>/<document>.json). */
export function releasedFile(version: ApiVersion, name: DocumentName): string {
  return path.join(RELEASED_DIR, version, `${name}.json`);
}

/** Writes `doc` as a released document (two-space JSON, final newline). */
export function writeJson(file: string, doc: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
}

/** A change of one document, with the versions whose documents have it. */
export interface VersionedChange extends Change {
  document: DocumentName;
  versions: ApiVersion[];
}

/** The fingerprint of a (released, current) pair with `info.version` left out: versions serving the same pair have the same changes. */
function pairKey(released: string, current: Json): string {
  const blank = (doc: Json) => JSON.stringify({ ...doc, info: { ...(doc.info as Json), version: '' } });
  return createHash('sha256').update(blank(JSON.parse(released) as Json)).update('\0').update(blank(current)).digest('hex');
}

/**
 * The changes of every supported version's documents, as the current sources serve them,
 * from that version's released documents. Versions whose pairs are the same are diffed
 * once. Throws when a version has no released documents (a new version is released
 * first: `npm run api:release`).
 */
export async function diffAll(): Promise<VersionedChange[]> {
  const work = mkdtempSync(path.join(tmpdir(), 'api-diff-'));
  try {
    const sources = await bundleSources(path.join(work, 'sources'));
    const byPair = new Map<string, Promise<Change[]>>();
    const results: { document: DocumentName; version: ApiVersion; changes: Promise<Change[]> }[] = [];
    for (const version of SUPPORTED_API_VERSIONS) {
      for (const document of DOCUMENTS) {
        const released = releasedFile(version, document);
        if (!existsSync(released)) throw new Error(`${path.relative(ROOT, released)} is missing: release the version first (npm run api:release)`);
        const current = servedDocument(sources[document] as Json & { info: { version: string } }, version);
        const key = pairKey(readFileSync(released, 'utf8'), current);
        let changes = byPair.get(key);
        if (!changes) {
          const file = path.join(work, version, `${document}.json`);
          writeJson(file, current);
          changes = compareDocuments(released, file, work);
          byPair.set(key, changes);
        }
        results.push({ document, version, changes });
      }
    }
    // Merge the same change of several versions into one entry.
    const merged = new Map<string, VersionedChange>();
    for (const r of results) {
      for (const c of await r.changes) {
        const key = JSON.stringify([r.document, c.kind, c.where, c.what]);
        const seen = merged.get(key);
        if (seen) seen.versions.push(r.version);
        else merged.set(key, { ...c, document: r.document, versions: [r.version] });
      }
    }
    return [...merged.values()];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const KIND_ORDER: ChangeKind[] = ['breaking', 'additive', 'documentation'];

/** The changelog lines of `changes`: one per change, breaking first, then by document and place. */
export function changelogEntries(changes: VersionedChange[]): string[] {
  const all = SUPPORTED_API_VERSIONS.length;
  return [...changes]
    .sort(
      (a, b) =>
        KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || a.document.localeCompare(b.document) || a.where.localeCompare(b.where) || a.what.localeCompare(b.what),
    )
    .map((c) => {
      const versions = c.versions.length === all ? '' : ` (${c.versions.join(', ')} only)`;
      const what = c.what.replace(/\s+/g, ' ').trim();
      return `- **${c.kind}** · ${c.document}${versions} · \`${c.where.replaceAll('`', "'")}\`: ${what}`;
    });
}

/** The body of the "Unreleased" section for `changes`. */
export function unreleasedSection(changes: VersionedChange[]): string {
  const entries = changelogEntries(changes);
  return entries.length ? entries.join('\n') : 'No changes to the documents since the last release.';
}

const UNRELEASED = /^## Unreleased\n\n([\s\S]*?)\n*(?=^## |(?![\s\S]))/m;

/** The "Unreleased" section's body in changelog `text`. Throws when it has none. */
export function readUnreleased(text: string): string {
  const match = UNRELEASED.exec(text);
  if (!match) throw new Error('the changelog has no "## Unreleased" section');
  return match[1].trimEnd();
}

/** `text` with the "Unreleased" section's body replaced by `body`. */
export function writeUnreleased(text: string, body: string): string {
  if (!UNRELEASED.test(text)) throw new Error('the changelog has no "## Unreleased" section');
  // A replacer function: the body may hold `$'` (a pattern's end), which a replacement string would expand.
  return text.replace(UNRELEASED, () => `## Unreleased\n\n${body}\n\n`);
}

/** Prints `changes` for `npm run api:diff`: each with its kind, document, versions and location. */
export function formatChanges(changes: VersionedChange[]): string {
  const lines: string[] = [];
  for (const c of [...changes].sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind))) {
    if (c.kind === 'documentation') continue;
    lines.push(`${c.kind.padEnd(9)} ${c.document} [${c.versions.join(',')}] ${c.where}`);
    lines.push(`          ${c.what.replace(/\s+/g, ' ')}${c.rule ? ` (${c.rule})` : ''}`);
    lines.push(`          at ${c.document}.json${c.pointer.startsWith('#') ? c.pointer : `#${c.pointer}`} (${c.what.startsWith('Removed') || /removed/i.test(c.what) ? 'the released document' : 'the document as served'})`);
    if (c.excused) lines.push(`          excused (openapi/diff-exceptions.yaml): ${c.excused.replace(/\s+/g, ' ')}`);
  }
  const count = (k: ChangeKind) => changes.filter((c) => c.kind === k).length;
  lines.push(`${count('breaking')} breaking, ${count('additive')} additive, ${count('documentation')} documentation change(s).`);
  return lines.join('\n');
}
