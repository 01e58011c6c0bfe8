/**
 * The API changelog reads as prose per operation and cannot drift: its "Unreleased"
 * section is what the diff of the current documents against the released ones says
 * (`npm run api:changelog` writes it), a release needs its releaser's summary, and it is
 * served at `/changelog` (and beside the documents).
 */
import { execFile } from 'node:child_process';
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { changelogSection, readUnreleased, releaseSection } from '../../scripts/api/changelog.js';
import { CHANGELOG, compareDocuments, diffAll, ROOT } from '../../scripts/apiContract.js';
import { SUPPORTED_API_VERSIONS } from '../../src/http/versions.js';
import { get } from '../support/client.js';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'api-diff', 'base.json');

describe('API changelog', function () {
  this.timeout(180_000);

  it('has the Unreleased section the diff gives (run `npm run api:changelog` after changing the documents)', async () => {
    const expected = changelogSection(await diffAll());
    expect(readUnreleased(readFileSync(CHANGELOG, 'utf8'))).to.equal(expected);
  });

  it('says per operation what changed, in words: a shared schema under each operation, deprecations with sunset and successor, documentation in one line', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'changelog-test-'));
    try {
      const doc = JSON.parse(readFileSync(FIXTURE, 'utf8'));
      const answer = { '200': { description: 'The endpoint.', content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookEndpoint' } } } } };
      // A new path with two operations, a new operation on a path, a removed operation.
      doc.paths['/webhooks/{endpoint_id}/secret'] = { get: { operationId: 'getWebhookSecret', responses: answer }, put: { operationId: 'rotateWebhookSecret', responses: answer } };
      doc.paths['/webhooks/{endpoint_id}'].get = { operationId: 'getWebhookEndpoint', responses: answer };
      delete doc.paths['/webhooks/{endpoint_id}'].delete;
      // A field of a shared response schema, a request field, a query parameter, a response header.
      doc.components.schemas.WebhookEndpoint.properties.failure_detail = { type: 'string', maxLength: 200 };
      doc.components.schemas.WebhookEndpointRequest.properties.labels = { type: 'string', maxLength: 100 };
      doc.paths['/webhooks'].get.parameters = [{ name: 'status', in: 'query', required: false, schema: { type: 'string', maxLength: 20 } }];
      doc.paths['/webhooks'].post.responses['201'].headers = { Location: { required: true, schema: { type: 'string', maxLength: 300 } } };
      // A deprecation naming its successor; documentation only.
      Object.assign(doc.paths['/webhooks'].get, { deprecated: true, 'x-deprecated-at': '2027-01-15', 'x-sunset': '2027-07-15', 'x-successor': 'getWebhookSecret' });
      doc.paths['/webhooks'].post.summary = 'Register an endpoint';
      doc.components.schemas.WebhookEndpoint.description = 'An endpoint.';
      const file = path.join(dir, 'revision.json');
      writeFileSync(file, JSON.stringify(doc));
      const changes = await compareDocuments(FIXTURE, file, dir);
      const section = changelogSection(changes.map((c) => ({ ...c, document: 'core' as const, versions: [...SUPPORTED_API_VERSIONS] })));
      expect(section).to.equal(
        [
          '### Changes',
          '',
          '- `DELETE /webhooks/{endpoint_id}` (core): **breaking**: removed (`deleteWebhookEndpoint`).',
          '- `GET /webhooks/{endpoint_id}/secret` (core): new operation (`getWebhookSecret`).',
          '- `GET /webhooks/{endpoint_id}` (core): new operation (`getWebhookEndpoint`).',
          '- `GET /webhooks` (core): accepts the optional query parameter `status`; response 200 gains optional `[].failure_detail`.',
          '- `POST /webhooks` (core): request body accepts optional `labels`; response 201 gains header `Location`; response 201 gains optional `failure_detail`.',
          '- `PUT /webhooks/{endpoint_id}/secret` (core): new operation (`rotateWebhookSecret`).',
          '',
          '### Deprecations',
          '',
          '- `GET /webhooks` (core): deprecated since 2027-01-15; sunset 2027-07-15: after it the operation answers 410 Gone and may be removed; use `GET /webhooks/{endpoint_id}/secret` (`getWebhookSecret`) instead.',
          '',
          '### Documentation',
          '',
          '- Descriptions, summaries or examples only, of 1 operation(s): `POST /webhooks` (core); 1 component(s).',
        ].join('\n'),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says an operation removed after its sunset was', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'changelog-test-'));
    try {
      const deprecated = JSON.parse(readFileSync(FIXTURE, 'utf8'));
      Object.assign(deprecated.paths['/webhooks/{endpoint_id}'].delete, { deprecated: true, 'x-deprecated-at': '2026-01-01', 'x-sunset': '2026-06-01' });
      const removed = structuredClone(deprecated);
      delete removed.paths['/webhooks/{endpoint_id}'];
      const [release, revision] = [path.join(dir, 'release.json'), path.join(dir, 'revision.json')];
      writeFileSync(release, JSON.stringify(deprecated));
      writeFileSync(revision, JSON.stringify(removed));
      const changes = await compareDocuments(release, revision, dir, '2026-06-02');
      expect(changelogSection(changes.map((c) => ({ ...c, document: 'core' as const, versions: [...SUPPORTED_API_VERSIONS] })))).to.equal(
        '### Changes\n\n- `DELETE /webhooks/{endpoint_id}` (core): removed after its sunset, 2026-06-01 (`deleteWebhookEndpoint`).',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('marks a change that reaches some API versions only', () => {
    const change = { kind: 'additive' as const, where: 'GET /wallets', what: 'Operation added.', pointer: '#/paths/~1wallets/get', operation: 'GET /wallets', location: [], event: 'added' as const, operationId: 'listWallets' };
    expect(changelogSection([{ ...change, document: 'closed-loop', versions: ['v2', 'v3'] }])).to.equal('### Changes\n\n- `GET /wallets` (closed-loop): new operation (`listWallets`) (v2, v3 only).');
  });

  it("folds a whole version's deprecation into one line", () => {
    const deprecated = (n: number) => ({
      kind: 'additive' as const, where: `GET /r${n}`, what: 'Deprecated.', pointer: `#/paths/~1r${n}/get/deprecated`, operation: `GET /r${n}`, location: ['deprecated'],
      deprecation: { at: '2027-01-15', sunset: '2027-07-15' }, document: 'core' as const, versions: ['v1' as const],
    });
    expect(changelogSection([1, 2, 3, 4, 5, 6, 7].map(deprecated))).to.equal(
      '### Deprecations\n\n- 7 operations (core): `GET /r1`, `GET /r2`, `GET /r3`, `GET /r4`, `GET /r5` and 2 more: deprecated since 2027-01-15; sunset 2027-07-15: after it the operation answers 410 Gone and may be removed (v1 only).',
    );
  });

  it('heads a release with its summary, and refuses one without', () => {
    const text = '# API changelog\n\n## Unreleased\n\n### Changes\n\n- `GET /a` (core): new operation (`getA`).\n\n## 1.0.0 — 2026-11-26\n\nFirst.\n';
    const released = releaseSection(text, '1.1.0', '2026-12-01', 'Listing by name.', '### Changes\n\n- `GET /a` (core): new operation (`getA`).');
    expect(released).to.equal(
      '# API changelog\n\n## Unreleased\n\nNo changes to the documents since the last release.\n\n## 1.1.0 — 2026-12-01\n\nListing by name.\n\n### Changes\n\n- `GET /a` (core): new operation (`getA`).\n\n## 1.0.0 — 2026-11-26\n\nFirst.\n',
    );
    expect(() => releaseSection(text, '1.1.0', '2026-12-01', '  ', '')).to.throw(/summary/);
  });

  it('npm run api:release refuses to release without --summary, changing nothing', async () => {
    const before = readFileSync(CHANGELOG, 'utf8');
    const failure = await promisify(execFile)(path.join(ROOT, 'node_modules/.bin/tsx'), ['scripts/api.ts', 'release'], { cwd: ROOT }).then(
      () => undefined,
      (err: { code?: number; stderr?: string }) => err,
    );
    expect(failure?.code).to.equal(2);
    expect(failure?.stderr).to.include('--summary');
    expect(readFileSync(CHANGELOG, 'utf8')).to.equal(before);
  });

  it('is served at GET /changelog as committed, in words per operation (no JSON pointers)', async () => {
    const res = await get('/changelog');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/markdown/);
    expect(res.body).to.equal(readFileSync(CHANGELOG, 'utf8'));
    const text = res.body as string;
    expect(text).to.match(/^## Unreleased$/m);
    const changes = [...text.matchAll(/^### Changes\n\n((?:- .*\n?)+)/gm)].flatMap((m) => m[1].trim().split('\n'));
    for (const line of changes) expect(line).to.match(/^- (`(GET|PUT|POST|DELETE|PATCH|HEAD|OPTIONS|TRACE) \/[^`]*`|Webhook `[a-z_.]+`) \((core|closed-loop)\): \S/);
    expect(text).to.not.match(/content\/application|\/properties\/|allOf\/|#\/components/);
  });

  it('is served beside the documents too, as GET /openapi/CHANGELOG.md', async () => {
    const res = await get('/openapi/CHANGELOG.md');
    expect(res.status).to.equal(200);
    expect(res.body).to.equal(readFileSync(CHANGELOG, 'utf8'));
  });

  it('answers 400 naming the header for an unsupported API version', async () => {
    const res = await get('/changelog', { headers: { 'X-API-Version': 'v0' } });
    expect(res.status).to.equal(400);
  });
});
