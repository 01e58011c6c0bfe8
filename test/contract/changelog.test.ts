/**
 * The API changelog cannot drift: its "Unreleased" section is what the diff of the
 * current documents against the released ones says (`npm run api:changelog` writes it),
 * and it is served beside the documents.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CHANGELOG, changelogEntries, compareDocuments, diffAll, readUnreleased, unreleasedSection } from '../../scripts/apiContract.js';
import { SUPPORTED_API_VERSIONS } from '../../src/http/versions.js';
import { get } from '../support/client.js';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'api-diff', 'base.json');

describe('API changelog', function () {
  this.timeout(180_000);

  it('has the Unreleased section the diff gives (run `npm run api:changelog` after changing the documents)', async () => {
    const expected = unreleasedSection(await diffAll());
    expect(readUnreleased(readFileSync(CHANGELOG, 'utf8'))).to.equal(expected);
  });

  it('names each added or removed operation by method and path, with its operationId', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'changelog-test-'));
    try {
      const doc = JSON.parse(readFileSync(FIXTURE, 'utf8'));
      const answer = { '200': { description: 'The endpoint.', content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookEndpoint' } } } } };
      // A new path with two operations, a new operation on a path, a removed operation.
      doc.paths['/webhooks/{endpoint_id}/secret'] = { get: { operationId: 'getWebhookSecret', responses: answer }, put: { operationId: 'rotateWebhookSecret', responses: answer } };
      doc.paths['/webhooks/{endpoint_id}'].get = { operationId: 'getWebhookEndpoint', responses: answer };
      delete doc.paths['/webhooks/{endpoint_id}'].delete;
      const file = path.join(dir, 'revision.json');
      writeFileSync(file, JSON.stringify(doc));
      const changes = await compareDocuments(FIXTURE, file, dir);
      const entries = changelogEntries(changes.map((c) => ({ ...c, document: 'core' as const, versions: [...SUPPORTED_API_VERSIONS] })));
      expect(entries).to.include.members([
        '- **breaking** · core · `DELETE /webhooks/{endpoint_id}`: Operation removed (operationId `deleteWebhookEndpoint`).',
        '- **additive** · core · `GET /webhooks/{endpoint_id}`: Operation added (operationId `getWebhookEndpoint`).',
        '- **additive** · core · `GET /webhooks/{endpoint_id}/secret`: Operation added (operationId `getWebhookSecret`), with its path.',
        '- **additive** · core · `PUT /webhooks/{endpoint_id}/secret`: Operation added (operationId `rotateWebhookSecret`), with its path.',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is served as GET /openapi/CHANGELOG.md, as committed', async () => {
    const res = await get('/openapi/CHANGELOG.md');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/markdown/);
    expect(res.body).to.equal(readFileSync(CHANGELOG, 'utf8'));
  });
});
