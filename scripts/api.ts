/**
 * The contract's release tools (see scripts/apiContract.ts):
 *
 *   tsx scripts/api.ts diff       the current documents, as each version serves them,
 *                                 against that version's released ones: prints every
 *                                 non-documentation change with its location; exits 1
 *                                 on any breaking change, and on any difference at all
 *                                 from the release (documentation included): main is
 *                                 released, a change lands with its release (no lint: it
 *                                 runs on a change in progress)
 *   tsx scripts/api.ts changelog  writes the "Unreleased" section of openapi/CHANGELOG.md
 *                                 from the diff, in words (scripts/api/changelog.ts)
 *   tsx scripts/api.ts release --summary "…"
 *                                 refuses breaking changes, a version change that misses
 *                                 what it reaches, and a release without a summary for
 *                                 people; writes a new version's documents (its version
 *                                 changes' notes head the release); bumps the documents'
 *                                 info.version (minor for additions, patch for
 *                                 documentation; 1.0.0 for the first release), turns
 *                                 Unreleased into a dated release headed by the summary,
 *                                 regenerates generated/, writes openapi/released/<version>/
 *                                 and regenerates clients/typescript/ (scripts/clients.ts)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { servedDocument, SUPPORTED_API_VERSIONS } from '../src/http/versions.js';
import { parseArgs } from 'node:util';
import { changelogSection, newVersionSection, releaseSection, writeUnreleased } from './api/changelog.js';
import { VERSION_CHANGES } from '../src/kernel/versioning/changes.js';
import { generateClients } from './clients.js';
import { CHANGELOG, DOCUMENTS, ROOT, diffAll, formatChanges, newVersions, releasedFile, uncoveredChanges, unreleasedDocuments, writeJson, type VersionedChange } from './apiContract.js';

const { positionals, values: options } = parseArgs({ allowPositionals: true, options: { summary: { type: 'string' } } });
const command = positionals[0];

/** The source document's `info.version` line (openapi/<name>.yaml: `  version: 1.2.3` under `info:`). */
const INFO_VERSION = /^(info:\n(?:(?: {2,}.*)?\n)*? {2}version: *)'?([0-9]+\.[0-9]+\.[0-9]+)'?$/m;

function sourceVersion(name: string): string {
  const match = INFO_VERSION.exec(readFileSync(path.join(ROOT, 'openapi', `${name}.yaml`), 'utf8'));
  if (!match) throw new Error(`openapi/${name}.yaml has no info.version`);
  return match[2];
}

function setSourceVersion(name: string, version: string): void {
  const file = path.join(ROOT, 'openapi', `${name}.yaml`);
  writeFileSync(file, readFileSync(file, 'utf8').replace(INFO_VERSION, `$1${version}`));
}

function bump(version: string, changes: VersionedChange[]): string {
  const [major, minor, patch] = version.split('.').map(Number);
  return changes.some((c) => c.kind === 'additive') ? `${major}.${minor + 1}.0` : `${major}.${minor}.${patch + 1}`;
}

/** Writes every version's released documents from generated/openapi (as each version serves them). */
function writeReleased(): void {
  for (const version of SUPPORTED_API_VERSIONS) {
    for (const name of DOCUMENTS) {
      const bundle = JSON.parse(readFileSync(path.join(ROOT, 'generated', 'openapi', `${name}.json`), 'utf8'));
      writeJson(releasedFile(version, name), servedDocument(bundle, version));
    }
  }
}

async function main(): Promise<void> {
  if (command === 'diff') {
    const changes = await diffAll();
    console.log(formatChanges(changes));
    if (changes.some((c) => c.kind === 'breaking')) {
      console.error('api:diff: breaking changes (above). Make the change additive, or serve it under a new API version.');
      process.exit(1);
    }
    const uncovered = uncoveredChanges();
    for (const line of uncovered) console.error(`api:diff: ${line}`);
    if (uncovered.length) {
      console.error('api:diff: a version change must name every operation and event its document change reaches (src/kernel/versioning/changes.ts), or clients of older versions receive the newest shape.');
      process.exit(1);
    }
    const unreleased = unreleasedDocuments();
    for (const version of newVersions()) console.error(`api:diff: ${version} is a new version: its documents are written by its first release.`);
    if (unreleased.length) {
      console.error(`api:diff: ${unreleased.join(', ')} differ from the latest release. A change to the documents lands with its release: npm run api:release -- --summary "…"`);
      process.exit(1);
    }
    return;
  }
  if (command === 'changelog') {
    const changes = await diffAll();
    writeFileSync(CHANGELOG, writeUnreleased(readFileSync(CHANGELOG, 'utf8'), changelogSection(changes)));
    console.log(`openapi/CHANGELOG.md: Unreleased has ${changes.length} change(s).`);
    return;
  }
  if (command === 'release') {
    const summary = options.summary?.trim();
    if (!summary) {
      console.error('api:release: write a summary for people: npm run api:release -- --summary "What this release brings, in a sentence or two."');
      process.exit(2);
    }
    const first = !existsSync(releasedFile(SUPPORTED_API_VERSIONS[0], DOCUMENTS[0]));
    const versions = DOCUMENTS.map(sourceVersion);
    if (new Set(versions).size !== 1) throw new Error(`the documents' info.version differ (${versions.join(', ')}): one release covers both`);
    let release = versions[0];
    let notes: string;
    if (first) {
      notes = 'The first release under change control: every later change is listed against it.';
    } else {
      const changes = await diffAll();
      if (changes.some((c) => c.kind === 'breaking')) {
        console.error(formatChanges(changes));
        console.error('api:release: breaking changes cannot be released (npm run api:diff).');
        process.exit(1);
      }
      const uncovered = uncoveredChanges();
      if (uncovered.length) {
        console.error(uncovered.join('\n'));
        console.error('api:release: a version change misses operations or events it reaches (npm run api:diff).');
        process.exit(1);
      }
      const added = newVersions();
      if (changes.length === 0 && added.length === 0) {
        console.error('api:release: nothing to release.');
        process.exit(1);
      }
      release = added.length ? bump(release, [{ kind: 'additive' } as VersionedChange]) : bump(release, changes);
      notes = [...added.map((version) => newVersionSection(version, VERSION_CHANGES)), changelogSection(changes)].join('\n\n');
      for (const name of DOCUMENTS) setSourceVersion(name, release);
    }
    execFileSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/generate.ts'], { cwd: ROOT, stdio: 'inherit' });
    writeReleased();
    await generateClients(); // the pinned clients follow the documents just released
    const date = new Date().toISOString().slice(0, 10);
    writeFileSync(CHANGELOG, releaseSection(readFileSync(CHANGELOG, 'utf8'), release, date, summary, notes));
    console.log(`released ${release} (${date}): openapi/released/, openapi/CHANGELOG.md, generated/, clients/typescript/`);
    return;
  }
  console.error('usage: tsx scripts/api.ts diff | changelog | release --summary "…"');
  process.exit(2);
}

await main();
