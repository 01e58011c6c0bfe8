/**
 * Every documented operation that moves money is marked `x-reauthentication` (openapi/DESIGN.md,
 * "Re-authentication"), so that a portal session moves a large amount only with a recent code.
 * An operation moves money when it is a POST whose `x-permission` is `money:move`, or
 * `payouts:write` with an amount in its request body (a payout; the whitelist's operations
 * carry none). An `amount` marker must name an amount field of the request body's schema.
 */
import { expect } from 'chai';
import { DOCUMENTS, loadBundledDocument } from '../../../src/http/apiBuild.js';
import { amountAt } from '../../../src/http/reauthentication.js';

type Schema = { $ref?: string; properties?: Record<string, Schema>; items?: Schema; allOf?: Schema[]; oneOf?: Schema[]; anyOf?: Schema[] };

interface Marked {
  operationId: string;
  method: string;
  permission: string;
  marker: unknown;
  body: Schema | undefined;
  resolve: (s: Schema) => Schema;
}

function operations(): Marked[] {
  return DOCUMENTS.flatMap((document) => {
    const doc = loadBundledDocument(document) as any;
    const resolve = (s: Schema): Schema => (s?.$ref ? resolve(s.$ref.split('/').slice(1).reduce((n: any, k: string) => n[k], doc)) : s);
    return Object.values<any>(doc.paths).flatMap((item) =>
      ['get', 'post', 'put', 'patch', 'delete']
        .filter((method) => item[method])
        .map((method) => {
          const op = item[method];
          return { operationId: op.operationId, method, permission: op['x-permission'], marker: op['x-reauthentication'], body: op.requestBody?.content?.['application/json']?.schema, resolve };
        }),
    );
  });
}

/** The schemas `pointer` (with `*` for an array's items) names under `schema`: none when a token names no property. */
function schemasAt(schema: Schema, pointer: string, resolve: (s: Schema) => Schema): Schema[] {
  let at: Schema[] = [schema];
  for (const token of pointer.split('/').slice(1)) {
    at = at.flatMap((s) => {
      const r = resolve(s);
      const parts = [r, ...(r.allOf ?? []), ...(r.oneOf ?? []), ...(r.anyOf ?? [])].map(resolve);
      return parts.flatMap((p) => (token === '*' ? (p.items ? [p.items] : []) : p.properties?.[token] ? [p.properties[token]] : []));
    });
  }
  return at;
}

/** Whether `schema` has a property named `amount` or ending in `_amount`, at any depth. */
function carriesAmount(schema: Schema | undefined, resolve: (s: Schema) => Schema, seen = new Set<Schema>()): boolean {
  if (!schema) return false;
  const r = resolve(schema);
  if (seen.has(r)) return false;
  seen.add(r);
  const props = Object.entries(r.properties ?? {});
  if (props.some(([name]) => name === 'amount' || name.endsWith('_amount'))) return true;
  return [...props.map(([, p]) => p), ...(r.items ? [r.items] : []), ...(r.allOf ?? []), ...(r.oneOf ?? []), ...(r.anyOf ?? [])].some((p) => carriesAmount(p, resolve, seen));
}

describe('re-authentication: every operation that moves money is marked', () => {
  const all = operations();
  /** Operations that carry an amount but move nothing, each with why. */
  const MOVES_NOTHING: Record<string, string> = {
    createPayoutApproval: 'holds a payout for a second person: nothing moves until approvePayoutApproval, which is marked',
  };
  const moving = all.filter(
    (o) => o.method === 'post' && !(o.operationId in MOVES_NOTHING) && (o.permission === 'money:move' || (o.permission === 'payouts:write' && carriesAmount(o.body, o.resolve))),
  );

  it('finds the movements of both documents', () => {
    expect(moving.map((o) => o.operationId)).to.include.members(['createTransfer', 'createFund', 'createReversal', 'createCustomerPayout', 'createBulkPayout', 'approvePayoutApproval']);
    expect(moving.map((o) => o.operationId)).to.not.include('addPayoutWhitelistEntries');
  });

  it('marks each of them true or with the pointer of an amount field of its request body', () => {
    const unmarked = moving.filter((o) => o.marker === undefined).map((o) => o.operationId);
    expect(unmarked, 'money-moving operations without x-reauthentication').to.deep.equal([]);
    for (const o of all.filter((x) => x.marker !== undefined && x.marker !== true)) {
      const pointer = (o.marker as { amount?: string }).amount ?? '';
      const fields = o.body ? schemasAt(o.body, pointer, o.resolve) : [];
      expect(fields, `${o.operationId}: ${pointer} names no field of the request body`).to.have.length.above(0);
      expect(/amount$/.test(pointer), `${o.operationId}: ${pointer} is not an amount`).to.equal(true);
    }
  });

  it('reads the amount at a pointer, summing the items of `*` and skipping values that are not amounts', () => {
    expect(amountAt({ amount: '10000.00' }, '/amount').toFixed(2)).to.equal('10000.00');
    expect(amountAt({ items: [{ a: '5000.5' }, { a: '4999.50' }, { a: 'x' }, { a: 7 }, {}] }, '/items/*/a').toFixed(2)).to.equal('10000.00');
    expect(amountAt({ 'a/b': { '~c': '1' } }, '/a~1b/~0c').toFixed(0)).to.equal('1');
    expect(amountAt({}, '/amount').isZero()).to.equal(true);
  });
});
