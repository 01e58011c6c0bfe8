/**
 * The breaking-change gate (scripts/api.ts runs it; the tests in
 * test/contract/apiDiff.test.ts and changelog.test.ts call it; the changelog's words are
 * scripts/api/changelog.ts's).
 *
 * The released documents are openapi/released/<version>/<document>.json: each supported
 * version's documents as that version served them at the last release
 * (src/http/versions.ts servedDocument). compareDocuments() diffs a released document
 * with a revision by `redocly diff` (rules: openapi/diff.redocly.yaml), excuses the
 * changes openapi/diff-exceptions.yaml lists, reports each change at every operation it
 * reaches (scripts/api/placing.ts: one inside a shared component under each operation
 * using it), and adds what
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
import { operationsOf, usages, type Json } from './api/document.js';
import { uncoveredReach } from './api/reach.js';
import { VERSION_CHANGES } from '../src/kernel/versioning/changes.js';
import type { VersionChange } from '../src/kernel/versioning/versionChange.js';
import { atOperations, describePointer, judge, perItem, perOperation, sameOperation, withDetail } from './api/placing.js';
import { DEPRECATION_PROPERTIES, pathParameterRenames, responseHeaderChanges, sdkChanges, sunsetChanges, type Change, type ChangeKind } from './api/rules.js';

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
/**
 * A change `redocly diff` rates major that breaks no client: either a property's change
 * (`property`, `from`, `to`, wherever it is) or the one change at `at` (its JSON pointer in
 * the document as served, e.g. one operation's response schema).
 */
interface Exception {
  rule: string;
  property?: string;
  from?: string;
  to?: string;
  at?: string;
  reason: string;
}

const KIND_OF_IMPACT: Record<RedoclyChange['impact'], ChangeKind> = { major: 'breaking', minor: 'additive', patch: 'documentation' };


function loadExceptions(): Exception[] {
  return (parse(readFileSync(EXCEPTIONS, 'utf8')) as Exception[] | null) ?? [];
}

/** The exception that excuses verdict `ruleId` on `change`, if any. */
function exceptionFor(change: RedoclyChange, ruleId: string, exceptions: Exception[]): Exception | undefined {
  return exceptions.find(
    (e) =>
      e.rule === ruleId &&
      (e.at !== undefined ? e.at === change.path : e.property === change.property && change.base?.value === e.from && change.revision?.value === e.to),
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
    // Tags group operations in the reference and the SDKs' docs: a tag added or removed is documentation.
    let kind = c.path.startsWith('#/tags/') ? 'documentation' : KIND_OF_IMPACT[c.impact];
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
  changes.push(...pathParameterRenames(base, revision), ...responseHeaderChanges(base, revision), ...sunsetChanges(base, revision, today));
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

/** The bundled sources as generated/openapi holds them (`npm run generate`; `npm test` checks they match openapi/). */
export function generatedBundles(): Record<DocumentName, Json> {
  return Object.fromEntries(DOCUMENTS.map((name) => [name, JSON.parse(readFileSync(path.join(ROOT, 'generated', 'openapi', `${name}.json`), 'utf8'))])) as Record<DocumentName, Json>;
}

/**
 * The `<version>/<document>` pairs whose released document (openapi/released/) is not, byte
 * for byte, what `bundles` (the generated sources unless given) serve at that version: what
 * is not released yet. Main is always released, so `npm run api:diff` fails on any.
 */
export function unreleasedDocuments(bundles: Record<DocumentName, Json> = generatedBundles()): string[] {
  const differ: string[] = [];
  for (const name of DOCUMENTS) {
    for (const version of SUPPORTED_API_VERSIONS) {
      const file = releasedFile(version, name);
      const served = `${JSON.stringify(servedDocument(bundles[name] as Json & { info: { version: string } }, version), null, 2)}\n`;
      if (!existsSync(file) || readFileSync(file, 'utf8') !== served) differ.push(`${version}/${name}`);
    }
  }
  return differ;
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

/** The supported versions with no released documents yet: new, released by the next `npm run api:release`. */
export function newVersions(): ApiVersion[] {
  return SUPPORTED_API_VERSIONS.filter((version) => DOCUMENTS.some((name) => !existsSync(releasedFile(version, name))));
}

/**
 * What each version change's document rewrite reaches in the newest documents (`bundles`, the
 * generated sources unless given) but does not name in its `operations` or `events`, one line
 * each (scripts/api/reach.ts): empty when every change covers its reach.
 */
export function uncoveredChanges(bundles: Record<DocumentName, Json> = generatedBundles(), changes: readonly VersionChange[] = VERSION_CHANGES): string[] {
  const problems: string[] = [];
  for (const change of changes) {
    for (const name of DOCUMENTS) {
      const { operations, events } = uncoveredReach(bundles[name], change);
      if (operations.length) problems.push(`version change ${change.name} (${change.version}) reaches operations of ${name} it does not name: ${operations.join(', ')}`);
      if (events.length) problems.push(`version change ${change.name} (${change.version}) reaches events of ${name} it does not name: ${events.join(', ')}`);
    }
  }
  return problems;
}

/**
 * The changes of every supported version's documents, as the current sources serve them,
 * from that version's released documents. Versions whose pairs are the same are diffed
 * once; a version with no released documents yet (newVersions) is left out.
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
        // A version with no release yet has nothing to keep compatible: its first release writes it.
        if (!existsSync(released)) continue;
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
    if (c.excused) lines.push(`          excused: ${c.excused.replace(/\s+/g, ' ')}`);
  }
  const count = (k: ChangeKind) => changes.filter((c) => c.kind === k).length;
  lines.push(`${count('breaking')} breaking, ${count('additive')} additive, ${count('documentation')} documentation change(s).`);
  return lines.join('\n');
}
