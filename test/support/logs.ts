/**
 * What the service under test logs to the console while a test runs: the service runs in
 * the mocha process, so a test can take the lines it writes (to console.log, warn, error)
 * during one step, for checks on what is logged and what is not.
 */

/** The lines logged to the console while `run` runs (the console is restored afterwards, also when `run` throws). */
export async function captureLogs(run: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const original = { log: console.log, warn: console.warn, error: console.error };
  for (const level of ['log', 'warn', 'error'] as const) console[level] = (...args: unknown[]) => lines.push(args.map(String).join(' '));
  try {
    await run();
  } finally {
    Object.assign(console, original);
  }
  return lines;
}
