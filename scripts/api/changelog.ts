/**
 * The API changelog for people (openapi/CHANGELOG.md, served at `/changelog`): per
 * release, the releaser's summary, then per operation what changed in words
 * ("`GET /payouts/{payout_id}` (core): response 200 gains optional `failure_detail`"),
 * deprecations with their sunset and successor, and documentation-only changes folded
 * into one line. `npm run api:changelog` writes the Unreleased section from the diff;
 * `npm run api:release -- --summary "…"` dates it.
 */
import { SUPPORTED_API_VERSIONS } from '../../src/http/versions.js';
import type { VersionedChange } from '../apiContract.js';

/** A schema location (pointer segments inside a schema) as a field path: `properties/data/items/properties/otp` → `data[].otp`. */
export function fieldPath(location: string[]): string | undefined {
  let field = '';
  for (let i = 0; i < location.length; i++) {
    const s = location[i];
    if (s === 'properties' && location[i + 1] !== undefined) field += `${field ? '.' : ''}${location[++i]}`;
    else if (s === 'items') field += '[]';
    else if ((s === 'allOf' || s === 'anyOf' || s === 'oneOf') && /^\d+$/.test(location[i + 1] ?? '')) i++;
  }
  return field || undefined;
}

/** The part of an operation a location is in: `response 200`, `request body`, `response 201 header \`Location\``; and the schema location inside it. */
function partOf(c: VersionedChange): { part: string; inside: string[] } {
  const webhook = c.operation?.startsWith('webhook ') ?? false;
  const loc = c.location ?? [];
  if (loc[0] === 'responses') {
    if (loc[2] === 'headers' && loc[3]) return { part: `response ${loc[1]} header \`${loc[3]}\``, inside: loc.slice(4) };
    return { part: `response ${loc[1]}`, inside: loc.slice(5) };
  }
  if (loc[0] === 'requestBody') return { part: webhook ? 'payload' : 'request body', inside: loc.slice(4) };
  return { part: c.parameter ?? loc.join('/'), inside: [] };
}

const sentence = (text: string): string => text.replace(/\s+/g, ' ').trim().replace(/\.$/, '');
const lower = (text: string): string => text.charAt(0).toLowerCase() + text.slice(1);

/** One change at its operation, in words (no JSON pointers). */
export function inWords(c: VersionedChange): string {
  const loc = c.location ?? [];
  const breaking = c.kind === 'breaking' ? '**breaking**: ' : '';
  const only = c.versions.length === SUPPORTED_API_VERSIONS.length ? '' : ` (${c.versions.join(', ')} only)`;
  const id = c.operationId ? ` (\`${c.operationId}\`)` : '';
  let words: string;
  if (c.rule?.startsWith('path-parameter') || c.rule?.startsWith('response-header-optional') || c.rule?.startsWith('sunset') || c.rule === 'operation-id') {
    words = lower(sentence(c.what));
  } else if (loc.length === 0 && !c.component && c.event !== 'modified') {
    words = c.event === 'added' ? `new operation${id}` : `${c.excused ? lower(sentence(c.excused)) : 'removed'}${id}`;
  } else if (loc[0] === 'parameters' && loc.length === 2 && c.parameter && c.event !== 'modified') {
    words = c.event === 'added' ? `accepts the ${c.required ? 'required' : 'optional'} ${c.parameter}` : `no longer accepts the ${c.parameter}`;
  } else if (loc[0] === 'responses' && loc.length === 2 && c.event !== 'modified') {
    words = c.event === 'added' ? `may answer ${loc[1]}` : `no longer answers ${loc[1]}`;
  } else {
    const { part, inside } = partOf(c);
    const field = fieldPath(inside);
    const named = loc.at(-2) === 'properties' || (loc[2] === 'headers' && loc.length === 4);
    if (named && c.event !== 'modified') {
      const name = `\`${field ?? loc.at(-1)}\``;
      if (loc[2] === 'headers' && loc.length === 4) words = `response ${loc[1]} ${c.event === 'added' ? 'gains' : 'loses'} header \`${loc[3]}\``;
      else if (c.side === 'sent') words = c.event === 'added' ? `${part} ${c.required ? 'requires' : 'accepts optional'} ${name}` : `${part} no longer accepts ${name}`;
      else words = c.event === 'added' ? `${part} gains ${c.required ? '' : 'optional '}${name}` : `${part} loses ${name}`;
    } else {
      const where = `${part}${field ? ` \`${field}\`` : ''}`.trim();
      words = `${where ? `${where}: ` : ''}${lower(sentence(c.what))}`;
    }
  }
  return `${breaking}${words}${only}`;
}

const byKey = (a: string, b: string) => a.localeCompare(b);

/** `gains optional \`a\``, `gains optional \`b\`` → `gains optional \`a\` and \`b\``: one phrase per kind of change (parameters: `parameters`). */
function mergeNames(words: string[]): string[] {
  const groups = new Map<string, string[]>();
  for (const w of words) {
    const m = /^(.*?)(`[^`]+`)$/.exec(w);
    const key = m && !m[1].includes('`') ? m[1] : w;
    groups.set(key, [...(groups.get(key) ?? []), m && key === m[1] ? m[2] : '']);
  }
  return [...groups].map(([prefix, names]) => {
    if (names.length < 2 || names.includes('')) return names.length === 1 && names[0] === '' ? prefix : names.map((n) => `${prefix}${n}`).join('; ');
    return `${prefix.replace(/parameter $/, 'parameters ')}${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  });
}

/** The operation a change names, for people: `` `GET /wallets` (closed-loop) ``, or for a webhook `` Webhook `payout.pending` (core) ``. */
function operationLabel(c: VersionedChange): string {
  const webhook = /^webhook (\S+) [A-Z]+$/.exec(c.operation ?? '');
  return webhook ? `Webhook \`${webhook[1]}\` (${c.document})` : `\`${c.operation ?? c.where}\` (${c.document})`;
}

/** Deprecations of more operations than this with the same dates, and no successor, share one line (a whole API version's). */
const FOLD_DEPRECATIONS = 5;

/**
 * The deprecation lines: per operation, since when, the sunset and the replacement; the
 * operations of one document deprecated alike (a version's deprecation) on one line.
 */
function deprecationLines(deprecations: VersionedChange[]): string[] {
  const groups = new Map<string, VersionedChange[]>();
  for (const c of deprecations) {
    const key = JSON.stringify([c.document, c.deprecation?.at, c.deprecation?.sunset, c.deprecation?.successor, c.versions]);
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  return [...groups.values()].flatMap((group) => {
    if (group.length <= FOLD_DEPRECATIONS || group[0].deprecation?.successor) return group.map((c) => deprecationLine(c, operationLabel(c)));
    const names = group.map((c) => `\`${c.operation}\``).sort(byKey);
    return [deprecationLine(group[0], `${group.length} operations (${group[0].document}): ${names.slice(0, FOLD_DEPRECATIONS).join(', ')} and ${names.length - FOLD_DEPRECATIONS} more`)];
  });
}

/** A deprecation line for `label`: since when, the sunset and the replacement. */
function deprecationLine(c: VersionedChange, label: string): string {
  const d = c.deprecation ?? {};
  const parts = [`deprecated${d.at ? ` since ${d.at}` : ''}`];
  parts.push(d.sunset ? `sunset ${d.sunset}: after it the operation answers 410 Gone and may be removed` : 'no sunset date yet');
  if (d.successor) parts.push(`use ${d.successorOperation ? `\`${d.successorOperation}\` ` : ''}(\`${d.successor}\`) instead`);
  const only = c.versions.length === SUPPORTED_API_VERSIONS.length ? '' : ` (${c.versions.join(', ')} only)`;
  return `- ${label}: ${parts.join('; ')}${only}.`;
}

/** A change of a document's own top level (its default `security`, its `tags`), which no operation names, in words. */
function documentLine(c: VersionedChange): string {
  const top = c.where.split('/')[1] ?? c.where;
  const only = c.versions.length === SUPPORTED_API_VERSIONS.length ? '' : ` (${c.versions.join(', ')} only)`;
  const breaking = c.kind === 'breaking' ? '**breaking**: ' : '';
  const words =
    top === 'security' && c.event === 'added'
      ? 'a new alternative in the default security, which every operation without its own security accepts'
      : top === 'tags' && c.event === 'added'
        ? 'a new tag'
        : lower(sentence(c.what));
  return `- The ${c.document} document's \`${top}\`: ${breaking}${words}${only}.`;
}

/**
 * The body of a changelog section for `changes`: `### Changes` (one line per operation,
 * its changes in words, breaking ones marked), `### Documents` (changes of a document's own
 * top level, such as its default security), `### Deprecations`, `### Documentation` (one
 * line). Documentation changes name their operations, and count the components.
 */
export function changelogSection(changes: VersionedChange[]): string {
  const deprecations = changes.filter((c) => c.deprecation);
  const docs = changes.filter((c) => c.kind === 'documentation' && !c.deprecation);
  const perOperation = new Map<string, string[]>();
  const ofDocuments = new Set<string>();
  for (const c of changes) {
    if (c.deprecation || c.kind === 'documentation') continue;
    if (!c.operation && !c.component && /^\/(security|tags|servers|info)(\/|$)/.test(c.where)) {
      ofDocuments.add(documentLine(c));
      continue;
    }
    const label = operationLabel(c);
    const list = perOperation.get(label) ?? [];
    const words = inWords(c);
    if (!list.includes(words)) list.push(words);
    perOperation.set(label, list);
  }
  const sections: string[] = [];
  if (perOperation.size) {
    const lines = [...perOperation].sort(([a], [b]) => byKey(a, b)).map(([label, words]) => `- ${label}: ${mergeNames(words.sort(byKey)).join('; ')}.`);
    sections.push(`### Changes\n\n${lines.join('\n')}`);
  }
  if (ofDocuments.size) sections.push(`### Documents\n\n${[...ofDocuments].sort(byKey).join('\n')}`);
  if (deprecations.length) sections.push(`### Deprecations\n\n${deprecationLines(deprecations).sort(byKey).join('\n')}`);
  if (docs.length) {
    const ops = [...new Set(docs.filter((c) => c.operation).map(operationLabel))].sort(byKey);
    const components = new Set(docs.filter((c) => !c.operation && c.pointer.startsWith('#/components/')).map((c) => `${c.document} ${c.pointer.split('/').slice(0, 4).join('/')}`));
    const other = [...new Set(docs.filter((c) => !c.operation && !c.pointer.startsWith('#/components/')).map((c) => `\`${c.where.replace(/^\//, '').replaceAll('/', '.').replace(' · ', '.')}\` (${c.document})`))].sort(byKey);
    const named = [ops.length ? `${ops.length} operation(s): ${ops.join(', ')}` : '', components.size ? `${components.size} component(s)` : '', other.join(', ')].filter(Boolean);
    sections.push(`### Documentation\n\n- Descriptions, summaries or examples only, of ${named.join('; ')}.`);
  }
  return sections.length ? sections.join('\n\n') : 'No changes to the documents since the last release.';
}

const UNRELEASED = /^## Unreleased\n\n([\s\S]*?)\n*(?=^## (?!#)|(?![\s\S]))/m;

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

/**
 * `text` with a release: an empty Unreleased section, then `## <release> — <date>`, the
 * releaser's `summary` and `body` (changelogSection). Throws without a summary.
 */
export function releaseSection(text: string, release: string, date: string, summary: string, body: string): string {
  if (!summary.trim()) throw new Error('a release needs a summary for people (--summary "…")');
  return writeUnreleased(text, changelogSection([])).replace(/^## Unreleased\n\n.*\n\n/m, (section) => `${section}## ${release} — ${date}\n\n${summary.trim()}\n\n${body}\n\n`);
}

/**
 * The changelog's section for a new API version `version`: how to move to it, each version
 * change made in it (its name and description, written for integrators) as one item.
 */
export function newVersionSection(version: string, changes: readonly { version: string; name: string; description: string }[]): string {
  const made = changes.filter((c) => c.version === version);
  const items = made.map((c) => `- **${c.name}**: ${c.description.replace(/\s+/g, ' ').trim()}`);
  return [
    `### New version ${version}`,
    '',
    `Send \`X-API-Version: ${version}\` to use it, test, then move each webhook endpoint (\`updateWebhookEndpoint\`) and the business's default (\`updateBusiness\`). The older versions keep their shapes. What changes from the version before it:`,
    '',
    ...items,
  ].join('\n');
}
