/**
 * An API document as the service runs it: its operations and their request
 * validators. The compiled service loads them precompiled from dist/api/
 * (written at build time by apiBuild.ts: operation list as JSON, validators
 * as standalone Ajv code), so that it starts without openapi-backend and
 * without compiling a schema; run from its TypeScript sources (tsx) without
 * precompiled files, it builds them in process instead.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ValidateFunction } from 'ajv';
import type { ApiOperation, CompiledApi, DocumentName } from './apiTypes.js';

interface PrecompiledOperation extends ApiOperation {
  validators: { module: number; export: string }[];
  /** The validators of the older versions whose request a version change reshapes. */
  versions?: Record<string, { module: number; export: string }[]>;
}

const require = createRequire(import.meta.url);

/**
 * Runs a precompiled CommonJS module with this package's `require` (its
 * imports, ajv's runtime helpers and ajv-formats' formats, resolve from here
 * wherever the file is) and returns its exports.
 */
function loadModule(file: string): Record<string, ValidateFunction> {
  const module = { exports: {} as Record<string, ValidateFunction> };
  new Function('module', 'exports', 'require', readFileSync(file, 'utf8'))(module, module.exports, require);
  return module.exports;
}

/** `name` as precompiled into `dir` (see apiBuild.ts); throws when the files are missing. */
function loadPrecompiled(name: DocumentName, dir: string): CompiledApi {
  const index = JSON.parse(readFileSync(path.join(dir, `${name}.operations.json`), 'utf8')) as PrecompiledOperation[];
  const modules = new Map<number, Record<string, ValidateFunction>>();
  const moduleOf = (i: number) => {
    if (!modules.has(i)) modules.set(i, loadModule(path.join(dir, `${name}.validators-${i}.cjs`)));
    return modules.get(i)!;
  };
  const validators = new Map(index.map((op) => [op.operationId, op.validators.map((v) => moduleOf(v.module)[v.export])]));
  const versioned = new Map(
    index.map((op) => [op.operationId, Object.fromEntries(Object.entries(op.versions ?? {}).map(([version, list]) => [version, list.map((v) => moduleOf(v.module)[v.export])]))]),
  );
  return {
    operations: index.map(({ validators: _, versions: __, ...op }) => op),
    validators: (operationId, version) => (version ? versioned.get(operationId)?.[version] : undefined) ?? validators.get(operationId) ?? [],
  };
}

/**
 * The document `name`: precompiled from `dir` when given, otherwise built in
 * this process with openapi-backend (loaded only then).
 */
export async function loadApi(name: DocumentName, dir?: string): Promise<CompiledApi> {
  if (dir) return loadPrecompiled(name, dir);
  const { buildApi } = await import('./apiBuild.js');
  return buildApi(name);
}
