/**
 * A version past its sunset breaks nothing else, on a real service with v1 (the default)
 * sunset: what needs no token (token, health, readiness, documents, changelog) and the
 * service's pages outside the documents (docs page, portal) answer as before, with or without
 * the header; a business pinned to v2 is served
 * at v2 without the header; a business still on v1 is answered 410 GONE naming the successor
 * (told, never moved to another version unasked); the header's v2 is served.
 */
import { expect } from 'chai';
import type { RunningService } from '../../src/server.js';
import { createAjv, loadBundledDocument } from '../../src/http/apiBuild.js';
import { servedDocument } from '../../src/http/versions.js';
import { get, post } from '../support/client.js';
import { tokenFor, uniq } from '../support/fixtures.js';
import { startExtraService } from '../support/service.js';

/** v1 past its sunset, as the service under test runs it. */
const SUNSET = { v1: { at: '2025-01-15', sunset: '2025-07-15', successor: 'v2' } };

/**
 * The errors of `body` against the 410 that `GET <path>` documents in the closed-loop document
 * as v1 serves it once sunset (servedDocument with SUNSET), or null; throws when no 410 is documented.
 */
function goneProblem(path: string, body: unknown): string | null {
  const served = servedDocument(loadBundledDocument('closed-loop') as never, 'v1', { deprecations: SUNSET }) as unknown as {
    paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: object }> }> } }>;
    components: object;
  };
  const gone = served.paths[path].get.responses['410'];
  if (!gone) throw new Error(`GET ${path} documents no 410 in sunset v1`);
  const ajv = createAjv();
  const validate = ajv.compile({ ...gone.content['application/problem+json'].schema, components: served.components });
  return validate(body) ? null : ajv.errorsText(validate.errors);
}

describe('a sunset version breaks nothing else', function () {
  this.timeout(120_000);
  let sunset: RunningService;
  let base: string;

  before(async () => {
    sunset = await startExtraService({}, undefined, { versionDeprecations: SUNSET });
    base = sunset.url;
  });
  after(() => sunset?.close());

  it('answers the routes that need no token as before, with and without the header', async () => {
    for (const headers of [{}, { 'X-API-Version': 'v1' }] as Record<string, string>[]) {
      const token = await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: 'sandbox-platform', client_secret: 'sandbox-platform-secret' }, { baseUrl: base, headers });
      expect(token.status, 'token').to.equal(200);
      for (const path of ['/health', '/ready', '/ping', '/', '/openapi/core.json', '/openapi/v1/closed-loop.json', '/openapi/v2/core.yaml', '/docs', '/portal', '/changelog', '/openapi/CHANGELOG.md']) {
        const res = await get(path, { baseUrl: base, headers });
        expect(res.status, `${path} ${JSON.stringify(headers)}`).to.equal(200);
        expect(res.headers.get('deprecation'), path).to.equal(null);
      }
    }
  });

  it("serves a business pinned to v2 at v2 without the header, and tells a business on v1 it is gone", async () => {
    const platform = await tokenFor('sandbox-platform', 'sandbox-platform-secret', base);
    const create = async (apiVersion: string) => {
      const res = await post('/cl/v1/businesses', { name: `Sunset ${uniq()}`, api_version: apiVersion }, { token: platform, baseUrl: base, headers: { 'X-API-Version': 'v2' } });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return tokenFor(res.body.credentials.client_id, res.body.credentials.client_secret, base);
    };
    const onV2 = await create('v2');
    const wallets = await get('/cl/v1/wallets', { token: onV2, baseUrl: base });
    expect(wallets.status).to.equal(200);
    expect(wallets.headers.get('x-api-version')).to.equal('v2');

    const onV1 = await create('v1');
    // The 410 is in v1's documents only once they are served sunset, not in the sources the
    // suite's client checks against: read as it is sent.
    const gone = await fetch(`${base}/cl/v1/wallets`, { headers: { authorization: `Bearer ${onV1}` } });
    expect(gone.status).to.equal(410);
    const problem = await gone.json();
    expect(problem).to.deep.include({ code: 'GONE', sunset: '2025-07-15', successor: 'v2' });
    expect(goneProblem('/wallets', problem), 'the 410 as sunset v1 documents it').to.equal(null);
    expect(gone.headers.get('sunset')).to.equal('Tue, 15 Jul 2025 00:00:00 GMT');
    const moved = await get('/cl/v1/wallets', { token: onV1, baseUrl: base, headers: { 'X-API-Version': 'v2' } });
    expect(moved.status, 'the header wins').to.equal(200);
    // The platform's requests without the header are at the default version, v1 here: gone too.
    const platformGone = await fetch(`${base}/cl/v1/businesses`, { headers: { authorization: `Bearer ${platform}` } });
    expect(platformGone.status).to.equal(410);
    expect(goneProblem('/businesses', await platformGone.json())).to.equal(null);
  });
});
