/**
 * Where the service finds its files, whether it runs from src/ (tsx: tests,
 * scripts) or compiled from dist/src/ (`npm start`).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The nearest directory at or above `from` that holds package.json. */
function projectRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/** The repository root. */
export const PROJECT_ROOT = projectRoot(import.meta.dirname);

/** The bundled API documents (generated/openapi: closed-loop and core, .json and .yaml). */
export const GENERATED_OPENAPI = path.join(PROJECT_ROOT, 'generated', 'openapi');

/** The released API documents, `<version>/<document>.json` (written by `npm run api:release`), served as they are. */
export const RELEASED_OPENAPI = path.join(PROJECT_ROOT, 'openapi', 'released');

/** The API changelog, served beside the documents (`GET /openapi/CHANGELOG.md`). */
export const API_CHANGELOG = path.join(PROJECT_ROOT, 'openapi', 'CHANGELOG.md');

/** Whether this code runs compiled from dist/ (as `npm start` runs it), not from src/ with tsx. */
export const RUNNING_COMPILED = path.relative(PROJECT_ROOT, import.meta.dirname).split(path.sep)[0] === 'dist';

/** Where the build precompiles the API documents' operations and validators (http/apiBuild.ts). */
export const PRECOMPILED_API_DIR = path.join(PROJECT_ROOT, 'dist', 'api');

/** The business portal's browser files (plain ES modules and CSS, served as they are by `GET /portal/assets/…`). */
export const PORTAL_ASSETS = path.join(PROJECT_ROOT, 'src', 'portal', 'assets');
