/**
 * docs/configuration.md against the code: its table lists exactly the environment
 * variables `src/` reads, and each default it states as a literal (`3000`) is the one
 * `loadConfig` uses. A literal default is checked by stating it: the configuration with
 * the variable set to it equals the one with the variable unset. A default in
 * parentheses ("(none)", "(generated once, …)") says the variable has no value of its
 * own when unset: setting it changes only fields that were unset (undefined or empty).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { loadConfig, type Config } from '../../../src/config.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

interface Row {
  variable: string;
  /** The default cell as written. */
  stated: string;
}

/** The rows of the guide's table: a first cell of one variable name in backticks. */
function guideRows(): Row[] {
  const text = readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');
  const rows: Row[] = [];
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const match = /^`([A-Z][A-Z0-9_]*)`$/.exec(cells[1] ?? '');
    if (line.startsWith('|') && match) rows.push({ variable: match[1], stated: cells[2] });
  }
  return rows;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? sourceFiles(file) : /\.(ts|mts|js|mjs)$/.test(name) ? [file] : [];
  });
}

/** Every environment variable read in src/: `process.env.X`, `env.X` (loadConfig's parameter), `env['X']`. */
function variablesRead(): Set<string> {
  const names = new Set<string>();
  for (const file of sourceFiles(path.join(ROOT, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b/g)) names.add(m[1]);
    for (const m of text.matchAll(/\benv\[\s*['"`]([A-Z][A-Z0-9_]*)['"`]\s*\]/g)) names.add(m[1]);
  }
  return names;
}

/** Fields of `config` that differ from `base`. */
function changed(base: Config, config: Config): (keyof Config)[] {
  return (Object.keys({ ...base, ...config }) as (keyof Config)[]).filter((k) => JSON.stringify(base[k]) !== JSON.stringify(config[k]));
}

function isUnset(value: unknown): boolean {
  return value === undefined || (typeof value === 'object' && value !== null && Object.keys(value).length === 0);
}

/** Values tried, in order, for a variable without a literal default: the first that loadConfig accepts is used. */
const PROBES = ['2:probe-secret-value', 'http://127.0.0.1:9/probe'];

describe('docs/configuration.md', () => {
  const rows = guideRows();

  it('lists exactly the environment variables src/ reads, each once', () => {
    const listed = rows.map((r) => r.variable);
    expect(listed.length, 'rows in the table').to.be.above(10);
    expect(new Set(listed).size, 'a variable listed twice').to.equal(listed.length);
    expect([...listed].sort()).to.deep.equal([...variablesRead()].sort());
  });

  it('states each default the code uses', () => {
    for (const { variable, stated } of rows) {
      const literal = /^`([^`]*)`$/.exec(stated);
      if (literal) {
        expect(loadConfig({ [variable]: literal[1] }), `${variable}: the stated default ${stated}`).to.deep.equal(loadConfig({}));
        continue;
      }
      expect(stated, `${variable}: a default is a literal in backticks or a phrase in parentheses`).to.match(/^\(.+\)$/);
      // A rail needs its secret; every other variable is probed alone.
      const base = variable === 'PAYOUT_RAIL_CALLBACK_SECRET' ? {} : { PAYOUT_RAIL_CALLBACK_SECRET: 'probe-rail-secret' };
      const unset = loadConfig(base);
      const probe = PROBES.find((value) => {
        try {
          loadConfig({ ...base, [variable]: value });
          return true;
        } catch {
          return false;
        }
      });
      expect(probe, `${variable}: no probe value accepted`).to.be.a('string');
      const fields = changed(unset, loadConfig({ ...base, [variable]: probe }));
      expect(fields, `${variable} changes no field`).to.not.be.empty;
      for (const field of fields) expect(isUnset(unset[field]), `${variable} (${field}) has a value when unset: state it as a literal`).to.equal(true);
    }
  });
});
