import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { SUPPORTED_API_VERSIONS } from '../../src/http/versions.js';
import { baseUrl } from '../support/service.js';
import { get, request } from '../support/client.js';
import { expectProblem } from '../support/assertions.js';

describe('gateway (core API)', () => {
  it('GET / describes the gateway, version 1.0.0, the API reference page and versioning', async () => {
    const res = await get('/');
    expect(res.status).to.equal(200);
    expect(res.body.version).to.equal('1.0.0');
    expect(res.body.endpoints).to.deep.include({ health: '/health', ready: '/ready', ping: '/ping', docs: '/docs' });
    expect(res.body.endpoints.versioning).to.deep.equal({ header: 'X-API-Version', supported: ['v1', 'v2', 'v3'], default: 'v1' });
  });

  it('GET /health, /ready and /ping answer without a token', async () => {
    expect((await get('/health')).body.status).to.equal('ok');
    const ready = await get('/ready');
    expect(ready.status).to.equal(200);
    expect(ready.body.checks.database).to.equal('ok');
    expect((await get('/ping')).body.message).to.equal('pong');
  });

  it('serves the bundled documents as JSON and YAML', async () => {
    const json = await get('/openapi/closed-loop.json');
    expect(json.status).to.equal(200);
    expect(json.body.openapi).to.equal('3.1.0');
    expect(json.body.paths).to.have.property('/refunds');
    const yaml = await get('/openapi/core.yaml');
    expect(yaml.status).to.equal(200);
    expect(yaml.headers.get('content-type')).to.match(/^application\/yaml/);
    expect(yaml.body).to.match(/^openapi: 3\.1\.0/m);
    const unknown = await get('/openapi/other.json');
    expect(unknown.status).to.equal(400);
    expect(unknown.body.errors[0].pointer).to.equal('/path/document');
  });

  it('serves each version\'s documents at /openapi/{version}/, info.version saying which; the unversioned ones as the request\'s version', async () => {
    for (const version of ['v1', 'v2', 'v3', 'v4']) {
      const json = await get(`/openapi/${version}/core.json`);
      expect(json.status).to.equal(200);
      expect(json.body.info.version).to.match(new RegExp(`^[0-9]+\\.[0-9]+\\.[0-9]+\\+${version}$`));
      const yaml = await get(`/openapi/${version}/closed-loop.yaml`);
      expect(yaml.headers.get('content-type')).to.match(/^application\/yaml/);
      expect(yaml.body).to.match(new RegExp(`^  version: [0-9]+\\.[0-9]+\\.[0-9]+\\+${version}$`, 'm'));
    }
    const release = (await get('/openapi/v2/closed-loop.json')).body.info.version.split('+')[0];
    expect((await get('/openapi/closed-loop.json')).body.info.version).to.equal(`${release}+v1`);
    expect((await get('/openapi/closed-loop.json', { headers: { 'X-API-Version': 'v3' } })).body.info.version).to.equal(`${release}+v3`);
    expect((await get('/openapi/core.yaml', { headers: { 'X-API-Version': 'v2' } })).body).to.include(`  version: ${release}+v2\n`);
    const unknown = await get('/openapi/v9/core.json');
    expect(unknown.status).to.equal(400);
    expect(unknown.body.errors[0].pointer).to.equal('/path/version');
  });

  it('echoes X-API-Version, defaults to v1 and refuses unsupported versions at the default version, naming the supported ones', async () => {
    expect((await get('/ping')).headers.get('x-api-version')).to.equal('v1');
    expect((await get('/ping', { headers: { 'X-API-Version': 'v3' } })).headers.get('x-api-version')).to.equal('v3');
    const bad = await get('/ping', { headers: { 'X-API-Version': 'v9' } });
    expectProblem(bad, 400, 'UNSUPPORTED_API_VERSION');
    expect(bad.headers.get('x-api-version'), 'served at the default version').to.equal('v1');
    expect(bad.body.detail).to.include('v1, v2, v3, v4');
    expect(bad.body.errors).to.deep.equal([{ pointer: '/header/X-API-Version', detail: 'must be one of v1, v2, v3, v4' }]);
  });

  it('names X-API-Version in Vary on every response, beside CORS\'s Origin', async () => {
    const vary = (res: { headers: Headers }) => (res.headers.get('vary') ?? '').split(/\s*,\s*/).map((h) => h.toLowerCase());
    expect(vary(await get('/ping'))).to.include('x-api-version');
    expect(vary(await get('/ping', { headers: { 'X-API-Version': 'v0' } }))).to.include('x-api-version');
    expect(vary(await get('/nowhere'))).to.include('x-api-version');
    expect(vary(await get('/cl/v1/wallets', { headers: { origin: 'https://docs.example.com' } }))).to.include.members(['origin', 'x-api-version']);
  });

  it('each version\'s documents default X-API-Version to that version, JSON and YAML alike', async () => {
    for (const version of SUPPORTED_API_VERSIONS) {
      const json = await get(`/openapi/${version}/core.json`);
      expect(json.body.components.parameters.ApiVersionParameter.schema).to.deep.equal({ $ref: '#/components/schemas/ApiVersion', default: version });
      const yaml = await get(`/openapi/${version}/closed-loop.yaml`);
      expect(parse(yaml.body as string).components.parameters.ApiVersionParameter.schema.default).to.equal(version);
    }
  });

  it('serves a released version\'s documents byte for byte as released, and nothing under next', async () => {
    for (const version of SUPPORTED_API_VERSIONS) {
      for (const document of ['closed-loop', 'core']) {
        const released = readFileSync(new URL(`../../openapi/released/${version}/${document}.json`, import.meta.url), 'utf8');
        const res = await fetch(`${baseUrl()}/openapi/${version}/${document}.json`);
        expect(await res.text(), `${version} ${document}`).to.equal(released);
        const yaml = await get(`/openapi/${version}/${document}.yaml`);
        expect(parse(yaml.body as string), `${version} ${document} YAML`).to.deep.equal(JSON.parse(released));
      }
    }
    const unversioned = await fetch(`${baseUrl()}/openapi/core.json`, { headers: { 'X-API-Version': 'v2' } });
    expect(await unversioned.text()).to.equal(readFileSync(new URL('../../openapi/released/v2/core.json', import.meta.url), 'utf8'));
    expectProblem(await get('/openapi/next/core.json'), 400, 'VALIDATION_ERROR');
  });

  it('gives every response an X-Request-Id, echoing a well-formed incoming one', async () => {
    const res = await get('/ping', { headers: { 'X-Request-Id': 'trace-123' } });
    expect(res.headers.get('x-request-id')).to.equal('trace-123');
    expect((await get('/health')).headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('answers unknown paths with 404 and wrong methods with 405, as problem details', async () => {
    const missing = await get('/nowhere');
    expectProblem(missing, 404, 'NOT_FOUND');
    const wrong = await request('DELETE', '/health');
    expectProblem(wrong, 405, 'METHOD_NOT_ALLOWED');
  });
});
