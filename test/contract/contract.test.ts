import { expect } from 'chai';
import { ERROR_STATUS } from '../../src/kernel/errors.js';
import { createAjv, loadBundledDocument } from '../../src/http/apiBuild.js';
import { assertMatchesContract } from '../support/contract.js';

/** The contract check every test relies on must itself reject departures from the documents. */
describe('contract check', () => {
  const headers = (extra: Record<string, string> = {}) =>
    new Headers({ 'content-type': 'application/json', 'x-request-id': 'r1', 'x-api-version': 'v1', ...extra });
  const pong = { message: 'pong', timestamp: '2026-11-21T10:15:30.123Z' };

  it('accepts a documented response', () => {
    expect(() => assertMatchesContract({ method: 'GET', path: '/ping', status: 200, headers: headers(), body: pong })).not.to.throw();
  });

  it('rejects an undocumented status', () => {
    expect(() => assertMatchesContract({ method: 'GET', path: '/ping', status: 503, headers: headers(), body: pong })).to.throw(
      /status 503 is not documented/,
    );
  });

  it('rejects a body that does not match the schema', () => {
    expect(() =>
      assertMatchesContract({ method: 'GET', path: '/ping', status: 200, headers: headers(), body: { message: 'pong' } }),
    ).to.throw(/schema/);
  });

  it('rejects an undocumented media type and a missing required header', () => {
    expect(() =>
      assertMatchesContract({ method: 'GET', path: '/ping', status: 200, headers: headers({ 'content-type': 'text/plain' }), body: pong }),
    ).to.throw(/media type/);
    const noRequestId = new Headers({ 'content-type': 'application/json', 'x-api-version': 'v1' });
    expect(() => assertMatchesContract({ method: 'GET', path: '/ping', status: 200, headers: noRequestId, body: pong })).to.throw(
      /X-Request-Id is missing/,
    );
  });

  it('rejects money as a number in a closed-loop response', () => {
    const body = { wallet_id: '7d9f0e39-6f5c-4c38-9a51-6d3c2b8f1a11', account_number: '900000000019', currency: 'SAR', balance: 10, can_overdraft: false, as_of: '2026-11-21T10:15:30.123Z' };
    expect(() =>
      assertMatchesContract({ method: 'GET', path: '/cl/v1/wallets/7d9f0e39-6f5c-4c38-9a51-6d3c2b8f1a11/balance', status: 200, headers: headers(), body }),
    ).to.throw(/balance/);
  });
});

/** The documents' own examples: what the docs show and mocks answer must be true. */
describe('documented examples', () => {
  const ajv = createAjv();
  type Node = Record<string, any>;
  /** Every (where, schema, example) of both documents: parameters, request and response bodies. */
  function examplesOf(name: 'closed-loop' | 'core'): { where: string; schema: Node; example: unknown }[] {
    const doc = loadBundledDocument(name) as Node;
    const deref = (n: any): any => (n?.$ref ? deref(n.$ref.split('/').slice(1).reduce((x: any, k: string) => x[k.replace(/~1/g, '/')], doc)) : n);
    const out: { where: string; schema: Node; example: unknown }[] = [];
    const fromMedia = (where: string, media: Node) => {
      const m = deref(media);
      if (m.example !== undefined) out.push({ where, schema: m.schema, example: m.example });
      for (const [k, ex] of Object.entries<any>(m.examples ?? {})) out.push({ where: `${where} (${k})`, schema: m.schema, example: deref(ex).value });
    };
    for (const [path, item] of Object.entries<Node>({ ...doc.paths, ...doc.webhooks })) {
      for (const [method, op] of Object.entries<Node>(item)) {
        if (!op?.responses) continue;
        const at = `${name} ${method.toUpperCase()} ${path}`;
        for (const p of [...(item.parameters ?? []), ...(op.parameters ?? [])].map(deref)) {
          if (p.example !== undefined) out.push({ where: `${at} parameter ${p.name}`, schema: p.schema, example: p.example });
        }
        for (const [type, media] of Object.entries<Node>(deref(op.requestBody)?.content ?? {})) fromMedia(`${at} request ${type}`, media);
        for (const [status, res] of Object.entries<Node>(op.responses)) {
          for (const [type, media] of Object.entries<Node>(deref(res).content ?? {})) fromMedia(`${at} ${status} ${type}`, media);
        }
      }
    }
    // One wrapper per schema, so that each schema is compiled once however many examples it has.
    const wrapped = new Map<Node, Node>();
    const withComponents = (schema: Node): Node => {
      if (!wrapped.has(schema)) wrapped.set(schema, { ...schema, components: doc.components });
      return wrapped.get(schema)!;
    };
    return out.map((e) => ({ ...e, schema: withComponents(e.schema) }));
  }
  const compiled = new Map<Node, ReturnType<typeof ajv.compile>>();

  it('every example validates against its schema', () => {
    const failures: string[] = [];
    let count = 0;
    for (const name of ['closed-loop', 'core'] as const) {
      for (const { where, schema, example } of examplesOf(name)) {
        count += 1;
        // The schema carries the document's components, so its refs resolve.
        if (!compiled.has(schema)) compiled.set(schema, ajv.compile(schema));
        const fn = compiled.get(schema)!;
        if (!fn(example)) failures.push(`${where}: ${ajv.errorsText(fn.errors)}`);
      }
    }
    expect(count).to.be.greaterThan(150);
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });

  it('every error example carries the status its code has in the one code table', () => {
    for (const name of ['closed-loop', 'core'] as const) {
      for (const { where, example } of examplesOf(name)) {
        const problem = example as { code?: string; status?: number };
        if (!where.includes('problem+json')) continue;
        expect(ERROR_STATUS, where).to.have.property(problem.code!);
        expect(problem.status, where).to.equal(ERROR_STATUS[problem.code as keyof typeof ERROR_STATUS]);
      }
    }
  });
});
