/**
 * `npm start`: runs the compiled service (dist/src/main.js) in this process,
 * building dist/ first (scripts/build.mjs) when it is missing or older than a
 * source: on a fresh clone, and after a change. Plain JavaScript, so that it
 * needs neither tsx nor a build to run. What it writes to stdout is a JSON log line
 * in the service's format (src/log.ts), like everything the service writes there.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { build, ROOT, STAMP } from './build.mjs';

const INPUTS = ['src', 'generated', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json', 'scripts/build.mjs'];

/** Latest modification time (ms) of a file, or of any file below a directory. */
function newest(file) {
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(file).reduce((latest, name) => Math.max(latest, newest(path.join(file, name))), stat.mtimeMs);
}

const built = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0;
if (INPUTS.some((input) => newest(path.join(ROOT, input)) > built)) {
  const log = pino(
    { level: process.env.LOG_LEVEL || 'info', base: { service: 'wallet-service' }, timestamp: pino.stdTimeFunctions.isoTime },
    pino.destination({ dest: process.env.LOG_FILE || 1, append: true, sync: true }),
  );
  log.info('building dist/ (npm run build)');
  await build();
}
await import(pathToFileURL(path.join(ROOT, 'dist/src/main.js')).href);
