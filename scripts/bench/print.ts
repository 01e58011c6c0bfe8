/**
 * The bench's one printer: tables of right-aligned figures under a left-aligned first
 * column, and the targets (a `Check` each) that decide the bench's exit status.
 */

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
