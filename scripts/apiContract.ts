/**
 * The breaking-change gate and the API changelog (scripts/api.ts runs them; the
 * tests in test/contract/apiDiff.test.ts and changelog.test.ts call them).
 *
 * The released documents are openapi/released/<version>/<document>.json: each supported
 * version's documents as that version served them at the last release
 * (src/http/versions.ts servedDocument). compareDocuments() diffs a released document
 * with a revision by `redocly diff` (rules: openapi/diff.redocly.yaml), excuses the
 * changes openapi/diff-exceptions.yaml lists, reports each change at every operation it
 * reaches (one inside a shared component under each operation using it), and adds what
 * the tool does not see or rates too low (scripts/api/rules.ts): SDK names, path
 * parameter names, response headers made optional, sunsets, new values of closed enums
 * the client receives.
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
import { at, componentOf, METHODS, operationKey, operationsOf, pointerOf, resolveRef, segments, sideOf, usages, type Json, type Usage } from './api/document.js';
import {
  DEPRECATION_PROPERTIES,
  deprecationNote,
  isOpenEnum,
  pastSunset,
  pathParameterRenames,
  responseHeaderChanges,
  sdkChanges,
  sunsetChanges,
  type Change,
  type ChangeKind,
} from './api/rules.js';

export type { Change, ChangeKind } from './api/rules.js';

const run = promisify(execFile);

export const ROOT = path.resolve(import.meta.dirname, '..');
export const DOCUMENTS = ['closed-loop', 'core'] as const;
export type DocumentName = (typeof DOCUMENTS)[number];
export const RELEASED_DIR = path.join(ROOT, 'openapi', 'released');
export const CHANGELOG = path.join(ROOT, 'openapi', 'CHANGELOG.md');
const REDOCLY = path.join(ROOT, 'node_modules', '.bin', 'redocly');
const DIFF_CONFIG = path.join(ROOT, 'openapi', 'diff.redocly.yaml');
const EXCEPTIONS = path.join(ROOT, 'openapi', 'diff-exceptions.yaml');

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

const KIND_OF_IMPACT: Record<RedoclyChange['impact'], ChangeKind> = { major: 'breaking', minor: 'additive', patch: 'documentation' };

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
      const params = (at(doc, [top, p, method, 'parameters']) ?? []) as unknown[];
      const param = resolveRef(doc, params[Number(rest[1])]);
      if (param && typeof param.name === 'string') rest[1] = `${rest[1]} (${String(param.in)} \`${param.name}\`)`;
    }
    where = `${operationKey(top, p, method)}${rest.length ? ` ${rest.join('/')}` : ''}`;
  } else if (top === 'paths' && p !== undefined) where = `${p}${method ? ` ${[method, ...rest].join('/')}` : ''}`;
  return property ? `${where} · ${property}` : where;
}

/**
 * `change` (the tool's `diffKind` of it) as the changelog names it: an added or removed
 * path item becomes one change per operation it holds, and an added or removed operation
 * says its operationId, so that each entry names the method and path a client calls (and
 * the SDK method). Any other change is returned as it is.
 */
function perOperation(change: Change, diffKind: RedoclyChange['kind'], base: Json, revision: Json): Change[] {
  const [top, p, method, ...rest] = segments(change.pointer);
  if ((top !== 'paths' && top !== 'webhooks') || p === undefined || rest.length > 0 || diffKind === 'modified') return [change];
  if (method !== undefined && !METHODS.includes(method)) return [change];
  const doc = diffKind === 'removed' ? base : revision;
  const item = at(doc, [top, p]) as Json | undefined;
  const methods = method !== undefined ? [method] : METHODS.filter((m) => item?.[m]);
  return methods.map((m) => {
    const operationId = at(doc, [top, p, m, 'operationId']);
    const what = `Operation ${diffKind}${typeof operationId === 'string' ? ` (operationId \`${operationId}\`)` : ''}${method === undefined ? `, with its path` : ''}.`;
    const key = operationKey(top, p, m);
    return { ...change, where: key, what, pointer: pointerOf([top, p, m]), operation: key, location: [], event: diffKind, ...(typeof operationId === 'string' ? { operationId } : {}) };
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

/**
 * `change` at every operation it reaches: one where the tool found it (its location
 * under the operation), or, for a change inside a component, one per operation of `doc`
 * that uses the component, with the side it is on. A change no operation reaches (a new
 * component, `info`) is returned alone.
 */
function atOperations(change: Change, toolPath: string, doc: Json, reach: Map<string, Usage[]>, released: Set<string>): Change[] {
  const component = componentOf(change.pointer);
  if (component && change.kind === 'documentation') return [change]; // counted as the component's
  // An operation new in the revision is listed as new, not with each part of it.
  const users = component ? reach.get(component)?.filter((u) => released.has(sameOperation(u.operation))) : undefined;
  if (users?.length) {
    const [, , name, ...inside] = segments(change.pointer);
    return users.map((u) => ({ ...change, operation: u.operation, side: u.side, component: name, location: [...u.via, ...inside], where: `${u.operation} · ${[name, ...inside].join('/')}${change.property && change.property !== inside.at(-1) ? ` · ${change.property}` : ''}` }));
  }
  const [top, p, method, ...rest] = segments(toolPath);
  if ((top !== 'paths' && top !== 'webhooks') || !METHODS.includes(method ?? '')) return [change];
  const name = component ? segments(change.pointer)[2] : undefined;
  return [{ ...change, operation: change.operation ?? operationKey(top, p, method), location: change.location ?? rest, side: sideOf(top, rest[0]), ...(name && !change.component ? { component: name } : {}) }];
}

/** An operation key up to its path parameters' names (`GET /a/{}`), to find it in the release after a rename. */
const sameOperation = (key: string): string => key.replace(/\{[^}]*\}/g, '{}');

/**
 * An added or removed list of parameters or map of response headers as one change per
 * parameter or header (the changelog names each).
 */
function perItem(change: Change, doc: Json): Change[] {
  const loc = change.location ?? [];
  const list = (loc.length === 1 && loc[0] === 'parameters') || (loc.length === 3 && loc[0] === 'responses' && loc[2] === 'headers');
  const node = at(doc, change.pointer);
  if (change.event === 'modified' || !list || !node || typeof node !== 'object') return [change];
  return Object.keys(node).map((key) => ({ ...change, pointer: `${change.pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, location: [...loc, key], where: `${change.where}/${key}` }));
}

/**
 * `change` with what the changelog says of an added or removed parameter or field: the
 * parameter's name and place, and whether it is required (in `doc`, the revision for an
 * addition, the release for a removal).
 */
function withDetail(change: Change, doc: Json): Change {
  const parts = segments(change.pointer);
  if (change.event === 'modified') return change;
  const [top, , , ...rest] = parts;
  if ((top === 'paths' || top === 'webhooks') && rest[0] === 'parameters' && rest.length === 2) {
    const param = resolveRef(doc, at(doc, parts));
    if (param && typeof param.name === 'string') return { ...change, parameter: `${String(param.in)} parameter \`${param.name}\``, required: param.required === true };
  }
  if (parts.at(-2) === 'properties') {
    const parent = at(doc, parts.slice(0, -2)) as Json | undefined;
    return { ...change, required: Array.isArray(parent?.required) && parent.required.includes(parts.at(-1)) };
  }
  return change;
}

/**
 * The gate's judgement of a change at an operation, beyond the tool's: a new value of an
 * enum the client receives breaks it unless the enum is declared open (rules.ts
 * isOpenEnum); removing an operation after its sunset is allowed.
 */
function judge(change: Change, base: Json, revision: Json, today: string): Change {
  if (change.rule === 'enum-values-added' && change.side === 'received' && !isOpenEnum(revision, change.pointer)) {
    return { ...change, kind: 'breaking', what: `${change.what} A client that checks the values it receives rejects the new one: declare the enum open (anyOf with a plain string, openapi/DESIGN.md "Open response enums") before adding values.` };
  }
  if (change.kind === 'breaking' && change.event === 'removed' && change.operation && change.location?.length === 0) {
    const sunset = pastSunset(base, change.operation, today);
    if (sunset) return { ...change, kind: 'additive', excused: `Removed after its sunset (${sunset}).` };
    const planned = deprecationNote(operationsOf(base).find((o) => o.key === change.operation)?.node)?.sunset;
    if (planned) return { ...change, what: `${change.what} Its sunset is ${planned}: it may be removed after that date, not before.` };
  }
  return change;
}

/**
 * The changes from the document in `baseFile` to the one in `revisionFile` (bundled
 * JSON), classified, each at every operation it reaches. `today` (`YYYY-MM-DD`, UTC)
 * decides which sunsets have passed. Throws when `redocly diff` cannot run.
 */
export async function compareDocuments(baseFile: string, revisionFile: string, workDir: string, today = new Date().toISOString().slice(0, 10)): Promise<Change[]> {
  const exceptions = loadExceptions();
  const base = JSON.parse(readFileSync(baseFile, 'utf8')) as Json;
  const revision = JSON.parse(readFileSync(revisionFile, 'utf8')) as Json;
  const reach = { removed: usages(base), other: usages(revision) };
  const released = new Set(operationsOf(base).map((op) => sameOperation(op.key)));
  const changes: Change[] = [];
  for (const c of await redoclyDiff(baseFile, revisionFile, workDir)) {
    if (c.kind === 'modified' && c.property && DEPRECATION_PROPERTIES.has(c.property)) continue; // rules.ts sunsetChanges
    const pointer = (c.kind === 'removed' ? c.base?.pointer : c.revision?.pointer) ?? c.path;
    const doc = c.kind === 'removed' ? base : revision;
    const where = describePointer(c.path, c.kind === 'modified' ? c.property : undefined, doc);
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
    const found: Change = { kind, where, what, rule: shown.map((v) => v.ruleId).join(', ') || undefined, pointer: c.path, excused, event: c.kind, property: c.property };
    for (const one of perOperation(found, c.kind, base, revision)) {
      const located = one.pointer === c.path ? { ...one, pointer } : one;
      const reached = atOperations(located, c.path, doc, c.kind === 'removed' ? reach.removed : reach.other, released);
      changes.push(...reached.flatMap((r) => perItem(r, doc)).map((r) => judge(withDetail(r, doc), base, revision, today)));
    }
  }
  // The tool reports a changed operationId itself (operation-id-changed); ours backs it up.
  const seen = new Set(changes.filter((c) => c.rule?.includes('operation-id-changed')).map((c) => c.operation));
  changes.push(...sdkChanges(base, revision).filter((c) => !(c.rule === 'operation-id' && seen.has(c.operation))));
  changes.push(...pathParameterRenames(base, revision), ...responseHeaderChanges(base, revision), ...sunsetChanges(base, revision));
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
