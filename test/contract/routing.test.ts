import { expect } from 'chai';
import { OpenAPIBackend } from 'openapi-backend';
import { AppError } from '../../src/kernel/errors.js';
import { loadBundledDocument } from '../../src/http/apiBuild.js';
import { loadApi } from '../../src/http/compiledApi.js';
import { RoutingTable } from '../../src/http/routing.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head'];

/** openapi-backend's own router: operationId, or 404 / 405, for `method` and `path`. */
function viaOpenApiBackend(backend: OpenAPIBackend, method: string, path: string): string | number {
  try {
    return backend.router.matchOperation({ method, path, headers: {}, query: {} }, true).operationId!;
  } catch (err) {
    return String(err).includes('405') ? 405 : 404;
  }
}

/**
 * The document as openapi-backend can route it: a documented trailing slash (seed E4's
 * `/payouts/`) dropped, since our router ignores it on both sides and openapi-backend only on
 * the request's.
 */
function withoutTrailingSlashes(doc: ReturnType<typeof loadBundledDocument>) {
  const paths = Object.fromEntries(Object.entries(doc.paths ?? {}).map(([k, v]) => [k.length > 1 ? k.replace(/\/+$/, '') : k, v]));
  return { ...doc, paths };
}

describe('routing table', () => {
  for (const [name, root] of [['closed-loop', '/cl/v1'], ['core', '/']] as const) {
    it(`routes every request of the ${name} document as openapi-backend's router does`, async () => {
      const backend = new OpenAPIBackend({ definition: withoutTrailingSlashes(loadBundledDocument(name)) as ReturnType<typeof loadBundledDocument>, apiRoot: root, quick: true, validate: false });
      await backend.init();
      const table = new RoutingTable((await loadApi(name)).operations, root);
      const prefix = root === '/' ? '' : root;
      const paths = new Set<string>(['', '/', '/nothing', '/cl/v1foo', '/wallets/lookup', '/wallets/lookup/', '/wallets//balance', '/a/b/c/d']);
      for (const op of backend.getOperations()) {
        const concrete = op.path.replace(/\{.*?\}/g, 'x1');
        for (const p of [op.path, concrete, `${concrete}/`, `${concrete}//`, `${concrete}/extra`, concrete.replace(/\/[^/]+$/, '')]) paths.add(p);
      }
      let compared = 0;
      for (const p of paths) {
        for (const method of METHODS) {
          const expected = viaOpenApiBackend(backend, method, `${prefix}${p}`);
          const got = table.match(method.toUpperCase(), `${prefix}${p}`);
          expect(typeof got === 'number' ? got : Array.isArray(got) ? 405 : got.operation.operationId, `${method} ${prefix}${p}`).to.equal(expected);
          if (Array.isArray(got)) expect(got, 'the methods of the path').to.not.include(method);
          compared++;
        }
      }
      expect(compared).to.be.greaterThan(100);
    });
  }

  it('extracts and percent-decodes path parameters; a malformed escape is 400 VALIDATION_ERROR', async () => {
    const table = new RoutingTable((await loadApi('closed-loop')).operations, '/cl/v1');
    const match = table.match('DELETE', '/cl/v1/wallets/w%201/labels/l%2F2/');
    expect(match).to.be.an('object');
    if (typeof match === 'object' && !Array.isArray(match)) {
      expect(match.operation.operationId).to.equal('removeSpecificWalletLabel');
      expect(match.params).to.deep.equal({ wallet_id: 'w 1', label_id: 'l/2' });
    }
    const lookup = table.match('GET', '/cl/v1/wallets/lookup');
    expect(typeof lookup === 'object' && !Array.isArray(lookup) && lookup.operation.operationId, 'a path without parameters wins').to.equal('lookupWallet');
    let error: unknown;
    try {
      table.match('GET', '/cl/v1/wallets/%E0%A4%A');
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(AppError);
    expect((error as AppError).code).to.equal('VALIDATION_ERROR');
    expect((error as AppError).errors?.[0].pointer).to.equal('/path/wallet_id');
  });
});
