/**
 * The bench's one printer: tables of right-aligned figures under a left-aligned first
 * column, and the targets (a `Check` each) that decide the bench's exit status.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';

/** A column: its heading and width; the first column is left-aligned, the others right-aligned. */
export type Column = [heading: string, width: number];

/** Prints `rows` under `columns`, a blank line before. */
export function printTable(columns: Column[], rows: (string | number)[][]): void {
  const line = (cells: (string | number)[]) => cells.map((c, i) => (i === 0 ? String(c).padEnd(columns[0][1]) : String(c).padStart(columns[i][1]))).join('');
  console.log(`\n${line(columns.map(([heading]) => heading))}`);
  for (const row of rows) console.log(line(row));
}

/** One target: what is measured, its value, the target, and whether it is met. */
export interface Check {
  what: string;
  value: string;
  target: string;
  met: boolean;
}

/** A ratio as printed: `1.23 ×`. */
export const times = (v: number): string => `${v.toFixed(2)} ×`;

/** Prints the targets; returns how many were missed. */
export function printChecks(checks: Check[]): number {
  printTable([['target', 76], ['value', 10], ['target', 12], ['  met', 5]], checks.map((c) => [c.what, c.value, c.target, c.met ? '  yes' : '   NO']));
  return checks.filter((c) => !c.met).length;
}

/** Where a run's targets are written for readers: docs/benchmark.md links here and keeps no figures of its own. */
export const RESULTS_FILE = new URL('../../docs/benchmark-results.md', import.meta.url);

/**
 * Writes the run's targets to docs/benchmark-results.md, replacing the last run's: the
 * one table of figures the documentation holds, so that it is always a run's own output.
 * `settings` is the run's header line (connections, seconds, which scenarios).
 */
export function writeResults(checks: Check[], settings: string, extra: string[] = []): void {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const lines = [
    '# Benchmark: the latest run',
    '',
    '<!-- Written by `npm run bench` (scripts/bench/print.ts, writeResults); a run replaces it. -->',
    '',
    `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${os.cpus().length} cores, Node.js ${process.version}: ${settings}.`,
    `Load average at the end (1, 5, 15 min): ${os.loadavg().map((l) => l.toFixed(1)).join(', ')}: above the cores' count, other work shared the machine and the ratios say less.`,
    'How to run and read it: [benchmark.md](benchmark.md).',
    '',
    '| target | value | target | met |',
    '|---|--:|--:|:-:|',
    ...checks.map((c) => `| ${cell(c.what)} | ${cell(c.value)} | ${cell(c.target)} | ${c.met ? 'yes' : '**no**'} |`),
    '',
    ...extra,
  ];
  writeFileSync(RESULTS_FILE, `${lines.join('\n').trimEnd()}\n`);
}
