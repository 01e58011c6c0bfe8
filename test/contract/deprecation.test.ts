/**
 * Deprecation headers driven by the documents (src/http/deprecation.ts): a deprecated
 * fixture operation, a deprecated fixture parameter and a deprecated fixture API version,
 * mounted as the service mounts its documents (mountApi), answer with Deprecation
 * (RFC 9745), Sunset (RFC 8594) and a Link to the changelog; nothing else does. Past its
 * sunset (fixtures with past dates, and a fixture clock) an operation or version answers 410.
 */
import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { goneResponse, operationDeprecations } from '../../src/http/deprecation.js';
import { createAjv } from '../../src/http/apiBuild.js';
import { AppError, toProblem } from '../../src/kernel/errors.js';
import { mountApi } from '../../src/http/openapi.js';
import type { ApiOperation } from '../../src/http/apiTypes.js';
import { servedDocument } from '../../src/http/versions.js';
import { get } from '../support/client.js';

const HEADERS = {
  Deprecation: { $ref: '#/components/headers/Deprecation' },
  Sunset: { $ref: '#/components/headers/Sunset' },
  Link: { $ref: '#/components/headers/Link' },
};

/** Fixture operations as the documents would declare them (dereferenced, as the service reads them). */
const FIXTURE = {
  gone: {
    operationId: 'getGoneThing',
    deprecated: true,
    'x-deprecated-at': '2025-01-15',
    'x-sunset': '2025-07-15',
    'x-successor': 'GET /things',
    responses: { '200': { description: 'The thing.', headers: HEADERS }, '410': { $ref: '#/components/responses/Gone' } },
  },
  old: {
    operationId: 'getOldThing',
    deprecated: true,
    'x-deprecated-at': '2026-12-01',
    'x-sunset': '2027-06-30',
    responses: { '200': { description: 'The thing.', headers: HEADERS }, '410': { $ref: '#/components/responses/Gone' } },
  },
  current: {
    operationId: 'getThing',
    parameters: [
      { name: 'legacy_filter', in: 'query', deprecated: true, 'x-deprecated-at': '2026-12-15', schema: { type: 'string' } },
      { name: 'status', in: 'query', schema: { type: 'string' } },
    ],
    responses: { '200': { description: 'The thing.', headers: { Deprecation: HEADERS.Deprecation, Link: HEADERS.Link } } },
  },
};

/** Validates `problem` against a gone response's schema, its `Problem` reference resolved from the bundled core document. */
function validateProblem(schema: object, problem: unknown): string | null {
  const ajv = createAjv();
  const core = JSON.parse(readFileSync(new URL('../../generated/openapi/core.json', import.meta.url), 'utf8'));
  const validate = ajv.compile({ ...schema, components: core.components });
  return validate(problem) ? null : ajv.errorsText(validate.errors);
}

/** A fixture operation behind the bearer token, or (`isPublic`) one that needs none. */
function apiOperation(path: string, op: Parameters<typeof operationDeprecations>[0], isPublic = false): ApiOperation {
  return { operationId: op.operationId!, method: 'get', path, security: isPublic ? '[]' : '[{"bearerAuth":[]}]', permission: isPublic ? 'none' : 'wallets:read', reauthentication: false, mediaTypes: [], ...operationDeprecations(op) };
}

describe('deprecation headers', () => {
  // The fixture service's clock: before the test v3 sunset (2027-07-15), after the others.
  let clock = Date.UTC(2026, 10, 28);
  let server: Server;
  let url: string;

  before(async () => {
    const handler = { access: 'any', handle: async () => ({ status: 200, body: { ok: true } }) };
    const mounted = mountApi({
      api: {
        operations: [apiOperation('/old', FIXTURE.old), apiOperation('/things', FIXTURE.current), apiOperation('/gone', FIXTURE.gone), apiOperation('/health', { operationId: 'getHealth', responses: {} }, true)],
        validators: () => [],
      },
      apiRoot: '/',
      operations: { getOldThing: handler, getThing: handler, getGoneThing: handler, getHealth: { ...handler, access: 'public' } } as never,
      services: {} as never,
      rateLimiter: { client: async () => ({}), address: async () => ({}) } as never,
      // The token names the business it acts for; `pinned-v1` is pinned to v1, any other to v2.
      tokens: { verify: async (header?: string) => ({ kind: 'BUSINESS', clientId: 'c', businessId: header?.replace(/^Bearer /, '') ?? 'b' }) } as never,
      pinnedVersion: async (businessId) => (businessId === 'pinned-v1' ? 'v1' : 'v2'),
      versionDeprecations: { v3: { at: '2027-01-15', sunset: '2027-07-15' }, v1: { at: '2025-01-15', sunset: '2025-07-15', successor: 'v3' } },
      now: () => clock,
    });
    const app = new Koa();
    app.use(async (ctx) => {
      // As src/http/app.ts negotiates it: the header's version, else the default (v1, sunset here).
      ctx.state.apiVersion = ctx.get('x-api-version') || 'v1';
      ctx.state.apiVersionRequested = ctx.get('x-api-version') !== '';
      try {
        await mounted.handle(ctx);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        ctx.status = err.status;
        ctx.body = toProblem(err, ctx.path, 'r1');
        for (const [name, value] of Object.entries(err.headers)) ctx.set(name, value);
      }
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  const headersOf = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${url}${path}`, { headers });
    expect(res.status, path).to.equal(200);
    return { deprecation: res.headers.get('deprecation'), sunset: res.headers.get('sunset'), link: res.headers.get('link') };
  };

  it('a deprecated operation answers with Deprecation, Sunset and Link to the changelog', async () => {
    expect(await headersOf('/old')).to.deep.equal({
      deprecation: `@${Date.UTC(2026, 11, 1) / 1000}`,
      sunset: 'Wed, 30 Jun 2027 00:00:00 GMT',
      link: '</changelog>; rel="deprecation", </changelog>; rel="sunset"',
    });
  });

  it('a deprecated parameter does so only when the request sends it (no Sunset without a date)', async () => {
    expect(await headersOf('/things?legacy_filter=x')).to.deep.equal({
      deprecation: `@${Date.UTC(2026, 11, 15) / 1000}`,
      sunset: null,
      link: '</changelog>; rel="deprecation"',
    });
    expect(await headersOf('/things?status=x')).to.deep.equal({ deprecation: null, sunset: null, link: null });
  });

  it('a deprecated API version marks every response of its requests', async () => {
    const v3 = await headersOf('/things', { 'X-API-Version': 'v3' });
    expect(v3.deprecation).to.equal(`@${Date.UTC(2027, 0, 15) / 1000}`);
    expect(v3.sunset).to.equal('Thu, 15 Jul 2027 00:00:00 GMT');
    expect(await headersOf('/things', { 'X-API-Version': 'v2' })).to.deep.equal({ deprecation: null, sunset: null, link: null });
  });

  it('after its sunset an operation answers 410 GONE naming its successor, with the deprecation headers', async () => {
    const res = await fetch(`${url}/gone`);
    expect(res.status).to.equal(410);
    const problem = await res.json();
    expect(problem).to.deep.include({ code: 'GONE', status: 410, sunset: '2025-07-15', successor: 'GET /things' });
    expect(problem.detail).to.equal('GET /gone passed its sunset on 2025-07-15 and no longer answers; use GET /things instead.');
    expect(res.headers.get('sunset')).to.equal('Tue, 15 Jul 2025 00:00:00 GMT');
    expect(res.headers.get('deprecation')).to.equal(`@${Date.UTC(2025, 0, 15) / 1000}`);
    const schema = structuredClone(goneResponse()['content'] as Record<string, { schema: object }>)['application/problem+json'].schema;
    expect(validateProblem(schema, problem)).to.equal(null);
  });

  it('after its sunset a whole version answers 410 GONE naming the version to move to; before it, the headers only', async () => {
    const res = await fetch(`${url}/things`, { headers: { 'X-API-Version': 'v1' } });
    expect(res.status).to.equal(410);
    expect(await res.json()).to.deep.include({ code: 'GONE', sunset: '2025-07-15', successor: 'v3', detail: 'API version v1 passed its sunset on 2025-07-15 and no longer answers; use v3 instead.' });
    expect((await headersOf('/things', { 'X-API-Version': 'v3' })).sunset).to.equal('Thu, 15 Jul 2027 00:00:00 GMT');
    clock = Date.UTC(2027, 6, 15); // the sunset's first instant
    try {
      expect((await fetch(`${url}/things`, { headers: { 'X-API-Version': 'v3' } })).status).to.equal(410);
    } finally {
      clock = Date.UTC(2026, 10, 28);
    }
  });

  it('a sunset default version breaks nothing else: a request without the header uses its business\'s version, and what needs no token never answers 410', async () => {
    const pinnedV2 = await fetch(`${url}/things`, { headers: { authorization: 'Bearer b2' } });
    expect(pinnedV2.status, 'a business pinned to v2, no header').to.equal(200);
    expect(pinnedV2.headers.get('x-api-version')).to.equal('v2');
    const pinnedV1 = await fetch(`${url}/things`, { headers: { authorization: 'Bearer pinned-v1' } });
    expect(pinnedV1.status, 'a business pinned to the sunset version is told so').to.equal(410);
    expect(await pinnedV1.json()).to.deep.include({ code: 'GONE', successor: 'v3' });
    for (const headers of [{}, { 'X-API-Version': 'v1' }] as Record<string, string>[]) {
      const health = await fetch(`${url}/health`, { headers });
      expect(health.status, JSON.stringify(headers)).to.equal(200);
      expect(health.headers.get('deprecation'), 'a version\'s deprecation does not reach it').to.equal(null);
    }
  });

  it('a sunset version\'s documents give every operation the 410; a sunset operation must document it (shared.yaml\'s Gone, the same object)', () => {
    const doc = servedDocument(
      {
        info: { version: '1.0.0' },
        security: [{ bearerAuth: [] }],
        paths: { '/things': { get: { operationId: 'getThing', responses: { '200': { description: 'x' } } } }, '/health': { get: { operationId: 'getHealth', security: [], responses: { '200': { description: 'x' } } } } },
      },
      'v2',
      { deprecations: { v2: { at: '2025-01-15', sunset: '2025-07-15', successor: 'v3' } } },
    );
    const op = doc.paths['/things'].get as Parameters<typeof operationDeprecations>[0] & { responses: Record<string, unknown> };
    expect(op.responses['410']).to.deep.equal(goneResponse());
    expect(doc.paths['/health'].get, 'what needs no token answers every version alike').to.deep.equal({ operationId: 'getHealth', security: [], responses: { '200': { description: 'x' } } });
    expect(operationDeprecations(op).deprecation).to.deep.equal({ at: '2025-01-15', sunset: '2025-07-15', successor: 'v3' });
    expect(() => operationDeprecations({ ...FIXTURE.gone, responses: { '200': FIXTURE.gone.responses['200'] } })).to.throw(/410/);
    const shared = parse(readFileSync(new URL('../../openapi/shared.yaml', import.meta.url), 'utf8'));
    expect(shared.components.responses.Gone).to.deep.equal(goneResponse());
  });

  it('refuses a deprecation without its date or without the documented headers', () => {
    expect(() => operationDeprecations({ ...FIXTURE.old, 'x-deprecated-at': undefined })).to.throw(/x-deprecated-at/);
    expect(() => operationDeprecations({ ...FIXTURE.old, 'x-sunset': '2026-01-01' })).to.throw(/x-sunset/);
    expect(() => operationDeprecations({ ...FIXTURE.old, responses: { '200': { description: 'x', headers: { Deprecation: {}, Link: {} } }, '410': {} } as never })).to.throw(/Sunset/);
  });

  it('a deprecated version\'s documents mark every operation deprecated, with the headers documented', () => {
    const doc = servedDocument({ info: { version: '1.0.0' }, security: [{ bearerAuth: [] }], paths: { '/things': { get: { operationId: 'getThing', responses: { '200': { description: 'x' } } } } } }, 'v2', {
      deprecations: { v2: { at: '2027-01-15', sunset: '2027-07-15' } },
    });
    const op = doc.paths['/things'].get as Parameters<typeof operationDeprecations>[0];
    expect(operationDeprecations(op).deprecation).to.deep.equal({ at: '2027-01-15', sunset: '2027-07-15' });
    expect(doc.info.version).to.equal('1.0.0+v2');
  });

  it('the service deprecates nothing today: no Deprecation header', async () => {
    const res = await get('/ping', { headers: { 'X-API-Version': 'v3' } });
    expect(res.headers.get('deprecation')).to.equal(null);
  });
});
