/**
 * openapi/DESIGN.md stays a record of decisions, not a lab notebook: at most MAX_LINES
 * lines, no run log (run letters, runs counted or dated, before → after timings, "X against
 * Y ms" comparisons: those belong to `npm run bench`'s output, docs/benchmark.md says how to
 * read it), and every `DESIGN.md#anchor` another Markdown file links to is one of its
 * headings (GitHub's slugs).
 *
 * DESIGN_MD=<path> checks another copy instead, e.g. an older one:
 *   git show HEAD~1:openapi/DESIGN.md > /tmp/DESIGN.md && DESIGN_MD=/tmp/DESIGN.md npx mocha test/platform/designLength.test.ts
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DESIGN = process.env.DESIGN_MD ? path.resolve(process.env.DESIGN_MD) : path.join(ROOT, 'openapi/DESIGN.md');
const MAX_LINES = 600;

/** What a measurement diary looks like; a decision keeps at most the one figure that decided it. */
const RUN_LOG: { what: string; pattern: RegExp }[] = [
  { what: 'a run letter ("run G")', pattern: /\brun [A-H]\b/ },
  { what: 'runs of a date', pattern: /\bruns? of \d{4}-\d{2}-\d{2}/ },
  { what: 'runs counted ("in each of 13 runs")', pattern: /\b(?:in each of|over|across|in) (?:the )?(?:last |latest )?(?:\d+|two|three|four|five|six|seven|eight|nine|ten) runs\b/i },
  { what: 'a before → after figure', pattern: /\d(?:\.\d+)? ?(?:ms |s |µs |KB |MB )?→ ?\d/ },
  { what: 'a timing against a timing', pattern: /\d[\d.,]* ?(?:ms|s|µs|KB)? against \d[\d.,]* ?(?:ms|s|µs|KB|a second)\b/ },
  { what: 'a run protocol', pattern: /\bmeasured on\b|\bthe two versions alternating\b|\bon a scratch database\b/i },
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to `-`. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown text's headings (outside code fences), a repeated one as GitHub numbers it. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

/** The repository's Markdown files, dependencies and build output aside. */
function markdownFiles(dir = ROOT): string[] {
  const skip = new Set(['node_modules', '.git', 'dist']);
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return skip.has(entry.name) ? [] : markdownFiles(full);
    return entry.name.endsWith('.md') ? [full] : [];
  });
}

describe('openapi/DESIGN.md', () => {
  const text = readFileSync(DESIGN, 'utf8');
  const lines = text.replace(/\n$/, '').split('\n');

  it(`has at most ${MAX_LINES} lines`, () => {
    expect(lines.length, `${DESIGN} has ${lines.length} lines`).to.be.at.most(MAX_LINES);
  });

  it('holds no run log', () => {
    const found = lines.flatMap((line, i) => RUN_LOG.filter((r) => r.pattern.test(line)).map((r) => `line ${i + 1}, ${r.what}: ${line.trim()}`));
    expect(found).to.deep.equal([]);
  });

  it('has every heading another Markdown file links to', () => {
    expect(slug('Running several instances, and what a fault of the database does')).to.equal('running-several-instances-and-what-a-fault-of-the-database-does');
    expect(slug('Runtime: Node 24 LTS from the lockfile')).to.equal('runtime-node-24-lts-from-the-lockfile');
    const headings = anchors(text);
    const missing: string[] = [];
    for (const file of markdownFiles()) {
      for (const link of readFileSync(file, 'utf8').matchAll(/DESIGN\.md#([^\s)"'<>\]]+)/g)) {
        const anchor = decodeURIComponent(link[1]).toLowerCase();
        if (!headings.has(anchor)) missing.push(`${path.relative(ROOT, file)}: DESIGN.md#${link[1]}`);
      }
    }
    expect(missing).to.deep.equal([]);
  });
});
