/**
 * Building an API document's operations and request validators with
 * openapi-backend and Ajv: at build time into standalone JavaScript
 * (`precompileApis`, run by `npm run build` / `npm start` into dist/api/), or
 * in process (`buildApi`) when the service runs from its TypeScript sources.
 * The service never loads this module when it runs compiled: it loads the
 * precompiled files (compiledApi.ts) and starts without openapi-backend or a
 * single schema compilation.
 *
 * The validators are openapi-backend's own per-operation request validators
 * (its schemas: the JSON body, and the path, query and header parameters with
 * query and path strings coerced to their types), compiled by Ajv for JSON
 * Schema 2020-12 with formats.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import * as standalone from 'ajv/dist/standalone/index.js';
import addFormats from 'ajv-formats';
import type { AnySchema, ValidateFunction } from 'ajv';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import { GENERATED_OPENAPI } from '../paths.js';
import type { ApiOperation, CompiledApi, DocumentName } from './apiTypes.js';
import { operationDeprecations } from './deprecation.js';
import { API_VERSIONING } from '../kernel/versioning/apiVersions.js';
import { amountPointerOf } from './reauthentication.js';

/** Every API document the service serves. */
export const DOCUMENTS: DocumentName[] = ['closed-loop', 'core'];

/** Reads a bundled document by name (`closed-loop` or `core`). */
export function loadBundledDocument(name: DocumentName): Document {
  return JSON.parse(readFileSync(path.join(GENERATED_OPENAPI, `${name}.json`), 'utf8')) as Document;
}

/** Ajv for OpenAPI 3.1 schemas (JSON Schema 2020-12) with string formats. */
export function createAjv(opts: Record<string, unknown> = {}): Ajv2020.default {
  const Ctor = (Ajv2020 as unknown as { default: typeof Ajv2020.default }).default ?? Ajv2020;
  const ajv = new Ctor({ strict: false, allErrors: true, ...opts });
  (addFormats as unknown as (a: unknown) => void)(ajv);
  return ajv;
}

/** A validator with the Ajv options it was compiled with. */
type BuiltValidator = { fn: ValidateFunction; options: Record<string, unknown> };

/** An operation's validators; `versions`: those of the older versions whose request the version changes reshape. */
interface BuiltOperation extends ApiOperation {
  validators: BuiltValidator[];
  versions: Record<string, BuiltValidator[]>;
}

/**
 * Reads `name` with openapi-backend and compiles every operation's request validators; and,
 * for each older API version, those of the operations a later version change names, from the
 * document as that version serves it (found by method and path: a change may rename the
 * operationId), so that a request is validated against its own version's document.
 */
async function buildOperations(name: DocumentName): Promise<BuiltOperation[]> {
  const bundle = loadBundledDocument(name);
  const newest = await readOperations(bundle);
  const byRoute = new Map(newest.map((op) => [`${op.method} ${op.path}`, op]));
  const built = newest.map((op) => ({ ...op, versions: {} as Record<string, BuiltValidator[]> }));
  const builtById = new Map(built.map((op) => [op.operationId, op]));
  for (const version of API_VERSIONING.versions) {
    const reshaped = new Set(API_VERSIONING.changedAfter(version).flatMap((c) => c.operations ?? []));
    if (reshaped.size === 0) continue;
    const selected = (method: string, route: string) => reshaped.has(byRoute.get(`${method} ${route}`)?.operationId ?? '');
    for (const op of await readOperations(API_VERSIONING.document(bundle, version), selected)) {
      if (!selected(op.method, op.path)) continue;
      builtById.get(byRoute.get(`${op.method} ${op.path}`)!.operationId)!.versions[version] = op.validators;
    }
  }
  return built;
}

/** The operations of document `definition` with their validators (`only`: of the operations it selects by method and path; the others have none). */
async function readOperations(definition: Document, only?: (method: string, path: string) => boolean): Promise<(ApiOperation & { validators: BuiltValidator[] })[]> {
  const ajvs = new Map<string, Ajv2020.default>();
  const optionsOf = new Map<ValidateFunction, Record<string, unknown>>();
  const backend = new OpenAPIBackend({
    definition,
    strict: true,
    quick: true, // validators are compiled below, once each
    validate: true,
    coerceTypes: true,
    // One Ajv per set of options (two in all) instead of one per validator.
    customizeAjv: (_ajv, ajvOpts) => {
      const key = JSON.stringify(ajvOpts);
      if (!ajvs.has(key)) {
        const ajv = createAjv(ajvOpts as Record<string, unknown>);
        const compile = ajv.compile.bind(ajv);
        ajv.compile = ((schema: AnySchema) => {
          const fn = compile(schema);
          optionsOf.set(fn, ajvOpts as Record<string, unknown>);
          return fn;
        }) as typeof ajv.compile;
        ajvs.set(key, ajv);
      }
      return ajvs.get(key) as never;
    },
  });
  // openapi-backend checks documents against the OpenAPI 3.0 meta-schema only; our
  // documents are 3.1 and are linted by redocly and spectral in `npm test` instead.
  backend.validateDefinition = () => backend.document;
  await backend.init();
  const documentSecurity = backend.definition.security ?? [];
  return backend.getOperations().map((op) => {
    const operationId = op.operationId ?? '';
    const selected = !only || only(op.method, op.path);
    const fns = (selected ? (backend.validator.getRequestValidatorsForOperation(operationId) ?? []) : []) as ValidateFunction[];
    // The field only where marked, as the precompiled JSON (which drops undefined) has it.
    const reauthenticationAmount = amountPointerOf(operationId, (op as { 'x-reauthentication'?: unknown })['x-reauthentication']);
    return {
      operationId,
      method: op.method,
      path: op.path,
      security: JSON.stringify(op.security ?? documentSecurity),
      permission: String((op as { 'x-permission'?: unknown })['x-permission'] ?? ''),
      reauthentication: (op as { 'x-reauthentication'?: unknown })['x-reauthentication'] === true,
      ...(reauthenticationAmount ? { reauthenticationAmount } : {}),
      mediaTypes: Object.keys((op.requestBody as { content?: object } | undefined)?.content ?? {}),
      ...operationDeprecations(op as never),
      validators: fns.map((fn) => ({ fn, options: optionsOf.get(fn) ?? {} })),
    };
  });
}

/** `name`'s operations and validators, compiled in this process. */
export async function buildApi(name: DocumentName): Promise<CompiledApi> {
  const built = await buildOperations(name);
  const validators = new Map(built.map((op) => [op.operationId, op.validators.map((v) => v.fn)]));
  const versioned = new Map(built.map((op) => [op.operationId, Object.fromEntries(Object.entries(op.versions).map(([v, list]) => [v, list.map((x) => x.fn)]))]));
  return {
    operations: built.map(({ validators: _, versions: __, ...op }) => op),
    validators: (operationId, version) => (version ? versioned.get(operationId)?.[version] : undefined) ?? validators.get(operationId) ?? [],
  };
}

/**
 * Writes `name`'s operations (`<name>.operations.json`, each with the names of
 * its validators) and its validators as standalone CommonJS (`<name>.validators-<n>.cjs`,
 * one module per set of Ajv options) into `dir`.
 */
async function precompileApi(name: DocumentName, dir: string): Promise<void> {
  const built = await buildOperations(name);
  const byOptions = new Map<string, { options: Record<string, unknown>; refs: Record<string, string> }>();
  const place = (list: BuiltValidator[], prefix: string) =>
    list.map(({ fn, options }, i) => {
      const key = JSON.stringify(options);
      if (!byOptions.has(key)) byOptions.set(key, { options, refs: {} });
      const exportName = `${prefix}_${i}`;
      byOptions.get(key)!.refs[exportName] = exportName;
      return { module: [...byOptions.keys()].indexOf(key), export: exportName, schema: fn.schema };
    });
  const operations = built.map(({ validators, versions, ...op }) => ({
    ...op,
    validators: place(validators, op.operationId),
    versions: Object.fromEntries(Object.entries(versions).map(([version, list]) => [version, place(list, `${op.operationId}_${version}`)])),
  }));
  mkdirSync(dir, { recursive: true });
  type Generate = (ajv: unknown, refs: Record<string, string>) => string;
  const interop = (standalone as unknown as { default: Generate | { default: Generate } }).default; // a CommonJS module seen from ESM
  const generate: Generate = typeof interop === 'function' ? interop : interop.default;
  [...byOptions.values()].forEach(({ options, refs }, module) => {
    const ajv = createAjv({ ...options, code: { source: true } });
    for (const op of operations) {
      for (const v of [...op.validators, ...Object.values(op.versions).flat()]) if (v.module === module) ajv.addSchema(v.schema as AnySchema, v.export);
    }
    writeFileSync(path.join(dir, `${name}.validators-${module}.cjs`), generate(ajv, refs));
  });
  const strip = (list: { module: number; export: string }[]) => list.map(({ module, export: e }) => ({ module, export: e }));
  const index = operations.map((op) => ({
    ...op,
    validators: strip(op.validators),
    versions: Object.fromEntries(Object.entries(op.versions).map(([version, list]) => [version, strip(list)])),
  }));
  writeFileSync(path.join(dir, `${name}.operations.json`), `${JSON.stringify(index, null, 1)}\n`);
}

/** Precompiles every document into `dir` (dist/api/ for the compiled service). */
export async function precompileApis(dir: string): Promise<void> {
  for (const name of DOCUMENTS) await precompileApi(name, dir);
}
