/**
 * `npm run build`: compiles the service to dist/ with tsc (tsconfig.build.json),
 * copies the SQL definitions (src/<capability>/sql/*.sql) beside the compiled
 * code, which applies them on start (src/db/sqlFunctions.ts), then precompiles the
 * API documents' operations and request validators into dist/api/
 * (src/http/apiBuild.ts), so that the compiled service starts without compiling a
 * schema. Plain JavaScript, so that it runs on a fresh clone.
 * tsc's messages (compile errors) go to stderr: `npm start` builds first, and its
 * stdout carries JSON log lines only.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT = path.resolve(import.meta.dirname, '..');
/** Written last by a successful build; its time is the build's. */
export const STAMP = path.join(ROOT, 'dist', '.build-stamp');

/**
 * Copies every src/<capability>/sql/ folder to dist/src/<capability>/sql/, replacing
 * what an earlier build copied there (a file deleted from src/ must not be applied).
 */
function copySqlDefinitions() {
  const src = path.join(ROOT, 'src');
  const dist = path.join(ROOT, 'dist', 'src');
  for (const entry of readdirSync(dist, { withFileTypes: true })) {
    if (entry.isDirectory()) rmSync(path.join(dist, entry.name, 'sql'), { recursive: true, force: true });
  }
  for (const capability of readdirSync(src)) {
    const dir = path.join(src, capability, 'sql');
    if (!existsSync(dir)) continue;
    mkdirSync(path.join(dist, capability, 'sql'), { recursive: true });
    for (const file of readdirSync(dir)) if (file.endsWith('.sql')) copyFileSync(path.join(dir, file), path.join(dist, capability, 'sql', file));
  }
}

/** Builds dist/; exits the process on a compile error. */
export async function build() {
  const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.build.json')], {
    stdio: ['ignore', process.stderr, process.stderr],
  });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
  copySqlDefinitions();
  const apiDir = path.join(ROOT, 'dist', 'api');
  rmSync(apiDir, { recursive: true, force: true });
  const { precompileApis } = await import(pathToFileURL(path.join(ROOT, 'dist/src/http/apiBuild.js')).href);
  await precompileApis(apiDir);
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await build();
