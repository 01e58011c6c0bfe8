/**
 * Main is released: the documents integrators download at `/openapi/{version}/…` are what
 * the server runs. Every operation the server routes is in the served document of every
 * supported version, and the sources do not differ from the latest release (the same check
 * `npm run api:diff` fails on, shown here to catch a one-word edit).
 */
import { expect } from 'chai';
import { loadBundledDocument } from '../../src/http/apiBuild.js';
import { SUPPORTED_API_VERSIONS } from '../../src/http/versions.js';
import { generatedBundles, unreleasedDocuments } from '../../scripts/apiContract.js';
import { get } from '../support/client.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** `METHOD /path` of every operation of an OpenAPI document. */
function routesOf(doc: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(doc.paths).flatMap(([p, item]) => METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${p}`));
}

describe('main is released', () => {
  for (const name of ['closed-loop', 'core'] as const) {
    it(`serves every operation the server routes in the ${name} document of every supported version`, async () => {
      const routed = routesOf(loadBundledDocument(name) as never);
      expect(routed.length).to.be.greaterThan(10);
      for (const version of SUPPORTED_API_VERSIONS) {
        const served = await get(`/openapi/${version}/${name}.json`);
        expect(served.status).to.equal(200);
        const missing = routed.filter((r) => !routesOf(served.body as never).includes(r));
        expect(missing, `routed but missing from /openapi/${version}/${name}.json`).to.deep.equal([]);
      }
    });
  }

  it('has no change to the documents that is not released, documentation included', () => {
    expect(unreleasedDocuments(), 'run npm run api:release -- --summary "…"').to.deep.equal([]);
    const edited = generatedBundles();
    (edited.core.info as { description: string }).description += ' One more word.';
    expect(unreleasedDocuments(edited)).to.deep.equal(SUPPORTED_API_VERSIONS.map((v) => `${v}/core`));
  });
});
