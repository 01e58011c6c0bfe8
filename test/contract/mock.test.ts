/**
 * `npm run mock`: Prism on the bundled documents, behind the front that gives
 * it the service's URL shape (closed-loop under /cl/v1, core at the root).
 * Every operation of both documents is called on the mock with its documented
 * request example and its query parameters' examples, from the examples and with `Prefer: dynamic=true`; each
 * answer must be a documented success that passes the documents' own schemas,
 * with the same contract check as the service's responses.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startMock, type RunningMock } from '../../scripts/mock.js';
import { loadBundledDocument } from '../../src/http/apiBuild.js';
import { request } from '../support/client.js';
import { RESPONSES_FILE } from '../support/service.js';
import { operationsOf } from '../support/operations.js';

const operations = [...operationsOf('closed-loop', '/cl/v1'), ...operationsOf('core', '')];

describe('mock server (npm run mock: Prism on the bundled documents)', function () {
  this.timeout(120_000);
  let mock: RunningMock;

  before(async () => {
    mock = await startMock({ port: 0, quiet: true, seed: 'wallet-mock' });
  });
  after(async () => mock?.close());

  for (const [mode, headers] of [
    ['the documents\' examples', {}],
    ['answers generated from the schemas (Prefer: dynamic=true)', { Prefer: 'dynamic=true' }],
  ] as const) {
    it(`answers every operation with a documented success: ${mode}`, async () => {
      for (const op of operations) {
        const res = await request(op.method, op.exampleQuery ? `${op.path}?${op.exampleQuery}` : op.path, {
          baseUrl: mock.url,
          coverage: false,
          token: op.secured ? 'any-token' : undefined,
          body: op.body,
          // Prism checks that a signed callback carries its signature header, not the signature itself.
          headers: { ...headers, ...op.exampleHeaders, ...(op.signedBy ? { 'X-Provider-Signature': 't=1795255200,v1=' + '0'.repeat(64) } : {}) },
        });
        expect(res.status, `${op.operationId}: ${JSON.stringify(res.body).slice(0, 300)}`).to.be.within(200, 299);
      }
    });
  }

  it('keeps the service\'s URL shape: closed-loop paths only under /cl/v1, core paths only at the root', async () => {
    const auth = { authorization: 'Bearer any-token' };
    expect((await fetch(`${mock.url}/cl/v1/labels`, { headers: auth })).status).to.equal(200);
    expect((await fetch(`${mock.url}/labels`, { headers: auth })).status).to.equal(404);
    expect((await fetch(`${mock.url}/ping`)).status).to.equal(200);
    expect((await fetch(`${mock.url}/cl/v1/ping`)).status).to.equal(404);
  });

  it('generates answers with Prefer: dynamic=true instead of returning the examples, kept out of the card data search', async () => {
    const recorded = () => (existsSync(RESPONSES_FILE) ? readFileSync(RESPONSES_FILE, 'utf8') : '');
    const before = recorded();
    const opts = { baseUrl: mock.url, coverage: false, token: 'any-token' };
    const example = await request('GET', '/cl/v1/labels', opts);
    expect(example.body).to.deep.equal((await request('GET', '/cl/v1/labels', opts)).body);
    const generated = await request('GET', '/cl/v1/labels', { ...opts, headers: { Prefer: 'dynamic=true' } });
    expect(generated.status).to.equal(200);
    expect(generated.body).to.not.deep.equal(example.body);
    // The mock's random strings are not the service's answers: a 3-digit one would meet a CVV of the run now and then.
    expect(recorded()).to.equal(before);
  });

  it('answers 401 as documented when a secured operation gets no token', async () => {
    const res = await request('GET', '/cl/v1/labels', { baseUrl: mock.url, coverage: false });
    expect(res.status).to.equal(401);
  });

  it('keeps working when the documents\' servers are absolute URLs with a variable ({baseUrl}/cl/v1)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mock-servers-'));
    const documents = { 'closed-loop': path.join(dir, 'closed-loop.json'), core: path.join(dir, 'core.json') };
    for (const [name, root] of [['closed-loop', '/cl/v1'], ['core', '']] as const) {
      const doc = { ...loadBundledDocument(name), servers: [{ url: `{baseUrl}${root}`, variables: { baseUrl: { default: 'http://localhost:3000' } } }] };
      writeFileSync(documents[name], JSON.stringify(doc));
    }
    const absolute = await startMock({ port: 0, quiet: true, documents });
    try {
      const opts = { baseUrl: absolute.url, coverage: false, token: 'any-token', headers: { Prefer: 'dynamic=true' } };
      expect((await request('GET', '/cl/v1/labels', opts)).status).to.equal(200);
      expect((await request('GET', '/ping', opts)).status).to.equal(200);
    } finally {
      await absolute.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
