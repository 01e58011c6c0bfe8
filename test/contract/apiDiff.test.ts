/**
 * The breaking-change gate's rules (scripts/apiContract.ts compareDocuments, as
 * `npm run api:diff` runs it), one fixture pair per rule: a change of the fixture document
 * (fixtures/api-diff/base.json) that must be refused, and one that must pass.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compareDocuments, type Change } from '../../scripts/apiContract.js';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const BASE = path.join(import.meta.dirname, 'fixtures', 'api-diff', 'base.json');
const base = (): Doc => JSON.parse(readFileSync(BASE, 'utf8'));
const request = (doc: Doc) => doc.components.schemas.WebhookEndpointRequest;
const response = (doc: Doc) => doc.components.schemas.WebhookEndpoint;

/** Each rule: a change that breaks clients and a change beside it that does not. */
const PAIRS: { rule: string; breaks: (doc: Doc) => void; passes: (doc: Doc) => void }[] = [
  {
    rule: 'a removed operation breaks; an added one does not',
    breaks: (doc) => delete doc.paths['/webhooks/{endpoint_id}'].delete,
    passes: (doc) => {
      doc.paths['/webhooks/{endpoint_id}'].get = {
        operationId: 'getWebhookEndpoint',
        responses: { '200': { description: 'The endpoint.', content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookEndpoint' } } } } },
      };
    },
  },
  {
    rule: 'a narrowed request field breaks (maxLength 200 to 90); a widened pattern (^https:// to ^https?://) does not',
    breaks: (doc) => (request(doc).properties.secret.maxLength = 90),
    passes: (doc) => {
      request(doc).properties.url.pattern = '^https?://';
      response(doc).properties.url.pattern = '^https?://';
    },
  },
  {
    rule: 'a new required request field breaks; a new optional one does not',
    breaks: (doc) => request(doc).required.push('description'),
    passes: (doc) => (request(doc).properties.labels = { type: 'string', maxLength: 100 }),
  },
  {
    rule: 'a removed response field breaks; an added optional response field does not',
    breaks: (doc) => delete response(doc).properties.description,
    passes: (doc) => (response(doc).properties.created_at = { type: 'string', format: 'date-time', maxLength: 40 }),
  },
  {
    rule: 'a renamed component schema breaks (SDK types); an added one does not',
    breaks: (doc) => {
      doc.components.schemas.WebhookEndpointResource = response(doc);
      delete doc.components.schemas.WebhookEndpoint;
      const text = JSON.stringify(doc).replaceAll('#/components/schemas/WebhookEndpoint"', '#/components/schemas/WebhookEndpointResource"');
      Object.assign(doc, JSON.parse(text));
    },
    passes: (doc) => (doc.components.schemas.WebhookEndpointList = { type: 'array', items: { $ref: '#/components/schemas/WebhookEndpoint' } }),
  },
  {
    rule: 'a changed operationId breaks (SDK methods); a changed summary does not',
    breaks: (doc) => (doc.paths['/webhooks'].post.operationId = 'registerWebhookEndpoint'),
    passes: (doc) => (doc.paths['/webhooks'].post.summary = 'Register an endpoint for webhooks'),
  },
  {
    rule: 'a removed status code breaks; a new value of a response enum does not (response enums are open)',
    breaks: (doc) => delete doc.paths['/webhooks'].post.responses['400'],
    passes: (doc) => response(doc).properties.status.enum.push('SUSPENDED'),
  },
  {
    rule: 'a new required query parameter breaks; a new optional one does not',
    breaks: (doc) => (doc.paths['/webhooks'].get.parameters = [{ name: 'status', in: 'query', required: true, schema: { type: 'string', maxLength: 20 } }]),
    passes: (doc) => (doc.paths['/webhooks'].get.parameters = [{ name: 'status', in: 'query', required: false, schema: { type: 'string', maxLength: 20 } }]),
  },
];

describe('api:diff rules (fixture pairs)', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => (dir = mkdtempSync(path.join(tmpdir(), 'api-diff-test-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function changesOf(name: string, mutate: (doc: Doc) => void): Promise<Change[]> {
    const doc = base();
    mutate(doc);
    const file = path.join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(doc, null, 2));
    return compareDocuments(BASE, file, dir);
  }

  it('finds no change between the fixture and itself', async () => {
    expect(await changesOf('same', () => {})).to.deep.equal([]);
  });

  PAIRS.forEach(({ rule, breaks, passes }, i) => {
    it(rule, async () => {
      const broken = await changesOf(`breaks-${i}`, breaks);
      expect(broken.filter((c) => c.kind === 'breaking'), JSON.stringify(broken, null, 2)).to.not.be.empty;
      const fine = await changesOf(`passes-${i}`, passes);
      expect(fine, 'the passing change is seen').to.not.be.empty;
      expect(fine.filter((c) => c.kind === 'breaking'), JSON.stringify(fine, null, 2)).to.be.empty;
    });
  });

  it('names the excused widening and its reason', async () => {
    const changes = await changesOf('widened', PAIRS[1].passes);
    expect(changes.some((c) => c.excused?.includes('Widening'))).to.equal(true);
  });
});
