/**
 * The API documents' request validators precompiled at build time (as the
 * compiled service loads them) decide exactly as the ones built in process
 * (as the service run from sources builds them), on every operation.
 */
import { expect } from 'chai';
import type { ValidateFunction } from 'ajv';
import { DOCUMENTS, loadBundledDocument } from '../../src/http/apiBuild.js';
import { loadApi } from '../../src/http/compiledApi.js';
import { precompiledApiDir } from '../support/service.js';

/** Inputs for an operation: its request examples, and broken variants of them. */
function inputs(doc: any, operationId: string): Record<string, unknown>[] {
  const examples: unknown[] = [];
  for (const item of Object.values<any>(doc.paths)) {
    for (const op of Object.values<any>(item)) {
      if (op?.operationId !== operationId) continue;
      for (const media of Object.values<any>(op.requestBody?.content ?? {})) {
        if (media.example) examples.push(media.example);
        for (const ex of Object.values<any>(media.examples ?? {})) examples.push(ex.value ?? ex);
      }
    }
  }
  const header = { 'content-type': 'application/json', 'x-api-version': 'v1', 'idempotency-key': 'k' };
  const bodies = [...examples, ...examples.map((e) => ({ ...(e as object), unexpected: 1 })), {}, [], 'text', null, { amount: 12 }];
  return [
    ...bodies.map((requestBody) => ({ path: {}, query: {}, header, cookie: {}, requestBody })),
    { path: { wallet_id: 'not-a-uuid', label_id: '7d9f0e39-6f5c-4c38-9a51-6d3c2b8f1a11' }, query: { limit: '5' }, header, cookie: {} },
    { path: {}, query: { limit: 'abc', cursor: 'x', status: 'NOPE' }, header: { 'x-api-version': 'v9' }, cookie: {} },
    { path: {}, query: { limit: ['1', '2'], created_from: '2026-01-01T00:00:00Z' }, header: {}, cookie: {} },
  ];
}

const run = (fns: ValidateFunction[], input: object) =>
  fns.map((fn) => {
    const copy = structuredClone(input);
    const valid = fn(copy);
    return { valid, errors: (fn.errors ?? []).map((e) => `${e.instancePath} ${e.keyword} ${e.message}`), coerced: copy };
  });

describe('precompiled API documents', () => {
  for (const name of DOCUMENTS) {
    it(`${name}: same operations, and the same verdicts, errors and coercions as validators built in process`, async () => {
      const [built, precompiled] = [await loadApi(name), await loadApi(name, precompiledApiDir())];
      expect(precompiled.operations).to.deep.equal(built.operations);
      const doc = loadBundledDocument(name);
      let compared = 0;
      for (const op of built.operations) {
        for (const input of inputs(doc, op.operationId)) {
          expect(run(precompiled.validators(op.operationId), input), `${op.operationId} ${JSON.stringify(input)}`).to.deep.equal(
            run(built.validators(op.operationId), input),
          );
          compared++;
        }
      }
      expect(compared).to.be.at.least(built.operations.length * 8);
    });
  }
});
