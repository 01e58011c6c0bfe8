/**
 * `npm run build`: compiles the service to dist/ with tsc (tsconfig.build.json),
 * then precompiles the API documents' operations and request validators into
 * dist/api/ (src/http/apiBuild.ts), so that the compiled service starts
 * without compiling a schema. Plain JavaScript, so that it runs on a fresh clone.
 * tsc's messages (compile errors) go to stderr: `npm start` builds first, and its
 * stdout carries JSON log lines only.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT = path.resolve(import.meta.dirname, '..');
/** Written last by a successful build; its time is the build's. */
export const STAMP = path.join(ROOT, 'dist', '.build-stamp');

/** Builds dist/; exits the process on a compile error. */
export async function build() {
  const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.build.json')], {
    stdio: ['ignore', process.stderr, process.stderr],
  });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
  const apiDir = path.join(ROOT, 'dist', 'api');
  rmSync(apiDir, { recursive: true, force: true });
  const { precompileApis } = await import(pathToFileURL(path.join(ROOT, 'dist/src/http/apiBuild.js')).href);
  await precompileApis(apiDir);
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await build();
