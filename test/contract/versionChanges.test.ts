/**
 * Version changes as code (src/kernel/versioning/): a test build adds a version `v5` with
 * one breaking change, kept here and not shipped, after the shipped versions and changes. The closed-loop `Wallet` response's `name`
 * becomes `display_name`, and creating a wallet requires a new `purpose`. The change undoes
 * both for v1 to v4. Checked:
 * - the documents: v1 to v4, as served, are byte for byte what they are without the change;
 *   v5 has it; the gate (scripts/apiContract.ts compareDocuments, as `npm run api:diff`
 *   runs it) sees nothing new in v4, and refuses the same edit made without a version change;
 * - the wire, at the edge (mountApi, as the service mounts its documents): a v1 to v4
 *   request without `purpose` is validated against its own version's document, reaches the
 *   handler in the newest shape, and is answered with `name`; a v5 request is answered with
 *   `display_name`;
 * - webhook payloads: rendered down for an endpoint at an older version;
 * - a generated SDK (as test/contract/sdk.test.ts generates them): v4's is the same, and the
 *   quickstart programs compile with it under `strict`.
 */
import { expect } from 'chai';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { compareDocuments, releasedFile, uncoveredChanges, writeJson, type Change } from '../../scripts/apiContract.js';
import { createAjv } from '../../src/http/apiBuild.js';
import { mountApi } from '../../src/http/openapi.js';
import { servedDocument, SUPPORTED_API_VERSIONS } from '../../src/http/versions.js';
import { ApiVersioning, type OpenApiDocument, type VersionChange } from '../../src/kernel/versioning/versionChange.js';
import { VERSION_CHANGES } from '../../src/kernel/versioning/changes.js';
import { AppError, toProblem } from '../../src/kernel/errors.js';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The edit to the newest document the test build makes (what a developer would write in openapi/). */
function edit(doc: Doc): Doc {
  const copy = structuredClone(doc);
  const wallet = copy.components.schemas.Wallet;
  wallet.properties = renameKey(wallet.properties, 'name', 'display_name');
  wallet.required = wallet.required.map((k: string) => (k === 'name' ? 'display_name' : k));
  const create = copy.components.schemas.WalletCreateRequest;
  create.properties.purpose = { type: 'string', minLength: 1, maxLength: 100, description: 'What the wallet is for.' };
  create.required = [...create.required, 'purpose'];
  return copy;
}

/** `object` with key `from` renamed `to`, in place in the key order. */
function renameKey<T extends Record<string, unknown>>(object: T, from: string, to: string): T {
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k === from ? to : k, v])) as T;
}

/** The test build's version change: what undoes the edit for the versions before v4. */
const WALLET_DISPLAY_NAME: VersionChange = {
  version: 'v5',
  name: 'wallet-display-name',
  description: 'A wallet\'s `name` is `display_name`; creating a wallet requires `purpose`.',
  operations: ['createWallet', 'getWallet'],
  document(doc: OpenApiDocument) {
    const d = doc as Doc;
    const wallet = d.components.schemas.Wallet;
    if (!wallet?.properties?.display_name) return d; // the core document's wallets are another schema
    wallet.properties = renameKey(wallet.properties, 'display_name', 'name');
    wallet.required = wallet.required.map((k: string) => (k === 'display_name' ? 'name' : k));
    const create = d.components.schemas.WalletCreateRequest;
    delete create.properties.purpose;
    create.required = create.required.filter((k: string) => k !== 'purpose');
    return d;
  },
  events: ['topup.complete'],
  request: (body) => ({ purpose: 'general', ...(body as object) }),
  response: (body) => renameKey(body as Record<string, unknown>, 'display_name', 'name'),
  webhook: (payload) => renameKey(payload as Record<string, unknown>, 'wallet_display_name', 'wallet_name'),
};

const ROOT = path.resolve(import.meta.dirname, '../..');
const bin = (name: string) => path.join(ROOT, 'node_modules/.bin', name);
/** The strict compiler options of test/contract/sdk.test.ts (an integrator's project). */
const SDK_TSCONFIG = {
  compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', skipLibCheck: true, noEmit: true, types: ['node'] },
};
const run = (command: string, args: string[], cwd: string) => promisify(execFile)(command, args, { cwd, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 16 << 20 });

const TEST_BUILD = new ApiVersioning([...SUPPORTED_API_VERSIONS, 'v5'], [...VERSION_CHANGES, WALLET_DISPLAY_NAME]);
const bundled = (): Doc => JSON.parse(readFileSync(path.join(import.meta.dirname, '..', '..', 'generated', 'openapi', 'closed-loop.json'), 'utf8'));

describe('version changes as code (a test build with v5)', () => {
  const newest = edit(bundled());

  it('v1 to v4 serve the documents they serve without the change, byte for byte; v5 has it', () => {
    for (const version of SUPPORTED_API_VERSIONS) {
      const withChange = JSON.stringify(servedDocument(newest as never, version, { versioning: TEST_BUILD }), null, 2);
      expect(withChange, version).to.equal(JSON.stringify(servedDocument(bundled() as never, version), null, 2));
    }
    const v5 = servedDocument(newest as never, 'v5', { versioning: TEST_BUILD }) as Doc;
    expect(v5.info.version).to.match(/\+v5$/);
    expect(v5.components.schemas.Wallet.properties).to.have.property('display_name').and.not.have.property('name');
    expect(v5.components.schemas.WalletCreateRequest.required).to.include('purpose');
    expect(v5.components.parameters.ApiVersionParameter.schema.default).to.equal('v5');
  });

  it('the gate sees nothing new in v4 with the change, and refuses the same edit made without one', async function () {
    this.timeout(60_000);
    const work = mkdtempSync(path.join(tmpdir(), 'version-change-'));
    try {
      const diff = async (name: string, doc: unknown): Promise<Change[]> => {
        const file = path.join(work, name, 'closed-loop.json');
        writeJson(file, doc);
        return compareDocuments(releasedFile('v4', 'closed-loop'), file, work);
      };
      const key = (c: Change) => `${c.kind} ${c.where} ${c.what}`;
      const before = (await diff('before', servedDocument(bundled() as never, 'v4'))).map(key);
      const withChange = (await diff('with', servedDocument(newest as never, 'v4', { versioning: TEST_BUILD }))).map(key);
      expect(withChange).to.deep.equal(before);
      const without = await diff('without', servedDocument(newest as never, 'v4'));
      const breaking = without.filter((c) => c.kind === 'breaking').map((c) => c.where);
      expect(breaking.some((w) => w.includes('purpose') || w.includes('WalletCreateRequest') || w.includes('POST /wallets')), breaking.join('\n')).to.equal(true);
      expect(breaking.some((w) => w.includes('name')), breaking.join('\n')).to.equal(true);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  describe('at the edge', () => {
    let server: Server;
    let url: string;
    const seen: unknown[] = [];

    before(async () => {
      // Each version's request schema: a request is validated against its own version's document.
      const ajv = createAjv();
      const requestSchema = (doc: Doc) => ajv.compile({ type: 'object', properties: { requestBody: { $ref: '#/components/schemas/WalletCreateRequest' } }, components: doc.components });
      const validateNewest = requestSchema(newest);
      const validateBefore = requestSchema(TEST_BUILD.document(newest, 'v4'));
      const mounted = mountApi({
        api: {
          operations: [{ operationId: 'createWallet', method: 'post', path: '/wallets', security: '[]', permission: 'none', reauthentication: false, mediaTypes: ['application/json'], deprecatedParameters: [] }],
          validators: (_id, version) => [version === 'v5' ? validateNewest : validateBefore],
        },
        apiRoot: '/',
        operations: {
          createWallet: {
            access: 'public',
            handle: async ({ body }: { body: { name: string; purpose: string } }) => {
              seen.push(body);
              return { status: 201, body: { id: 'w1', display_name: body.name, purpose: body.purpose } };
            },
          },
        } as never,
        services: {} as never,
        rateLimiter: {} as never,
        tokens: {} as never,
        versioning: TEST_BUILD,
      });
      const app = new Koa();
      app.use(async (ctx, next) => {
        try {
          await next();
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          ctx.status = err.status;
          ctx.body = toProblem(err, ctx.path, 'r1');
        }
      });
      app.use(bodyParser());
      app.use(async (ctx) => {
        ctx.state.apiVersion = ctx.get('x-api-version');
        await mounted.handle(ctx);
      });
      server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise((resolve) => server.close(resolve)));

    const create = async (version: string, body: object) => {
      const res = await fetch(`${url}/wallets`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-version': version }, body: JSON.stringify(body) });
      return { status: res.status, body: await res.json() };
    };

    it('v1 to v4 keep their wire shape: no purpose sent, name answered; the handler sees the newest shape', async () => {
      for (const version of SUPPORTED_API_VERSIONS) {
        seen.length = 0;
        expect(await create(version, { name: 'Ahmed' })).to.deep.equal({ status: 201, body: { id: 'w1', name: 'Ahmed', purpose: 'general' } });
        expect(seen).to.deep.equal([{ purpose: 'general', name: 'Ahmed' }]);
      }
    });

    it('v5 requires purpose and answers display_name; an older version may not send v5\'s field', async () => {
      const refused = await create('v5', { name: 'Ahmed' });
      expect(refused.status).to.equal(400);
      expect(refused.body.code).to.equal('VALIDATION_ERROR');
      expect(await create('v5', { name: 'Ahmed', purpose: 'payroll' })).to.deep.equal({ status: 201, body: { id: 'w1', display_name: 'Ahmed', purpose: 'payroll' } });
      const early = await create('v4', { name: 'Ahmed', purpose: 'payroll' });
      expect(early.status, 'validated against v4, which has no purpose').to.equal(400);
    });
  });

  it('an SDK generated from v4 of the test build is the one generated without the change, and the quickstarts compile with it', async function () {
    this.timeout(240_000);
    mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
    const dir = mkdtempSync(path.join(ROOT, '.tmp', 'version-change-sdk-'));
    try {
      cpSync(path.join(ROOT, 'test/contract/sdk'), dir, { recursive: true });
      writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(SDK_TSCONFIG, null, 2));
      writeJson(path.join(dir, 'v4.json'), servedDocument(newest as never, 'v4', { versioning: TEST_BUILD }));
      writeJson(path.join(dir, 'v4-unchanged.json'), servedDocument(bundled() as never, 'v4'));
      writeJson(path.join(dir, 'v5.json'), servedDocument(newest as never, 'v5', { versioning: TEST_BUILD }));
      await Promise.all([
        run(bin('openapi-typescript'), ['v4.json', '-o', 'openapi-fetch/schema.ts'], dir),
        run(bin('openapi-typescript'), ['v4-unchanged.json', '-o', 'unchanged.ts'], dir),
        run(bin('openapi-typescript'), ['v5.json', '-o', 'v5.ts'], dir),
        run(bin('openapi-ts'), ['-i', 'v4.json', '-o', 'hey-api'], dir),
      ]);
      const text = (file: string) => readFileSync(path.join(dir, file), 'utf8');
      expect(text('openapi-fetch/schema.ts') === text('unchanged.ts'), 'v4 types equal').to.equal(true);
      expect(text('v5.ts')).to.include('display_name').and.match(/purpose: string;/);
      await run(bin('tsc'), ['-p', '.'], dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the gate names each operation and event a change reaches but does not name (here listWallets and every other reader of a wallet), and passes the shipped changes', () => {
    const bundles = { 'closed-loop': newest, core: JSON.parse(readFileSync(path.join(ROOT, 'generated', 'openapi', 'core.json'), 'utf8')) };
    const [problem, ...others] = uncoveredChanges(bundles, [WALLET_DISPLAY_NAME]);
    expect(others).to.deep.equal([]);
    expect(problem).to.match(/^version change wallet-display-name \(v5\) reaches operations of closed-loop it does not name: /);
    for (const op of ['listWallets', 'lookupWallet', 'updateWallet']) expect(problem).to.include(op);
    expect(problem).to.not.include('createWallet').and.not.include('getWallet,');
    const reached = problem.split(': ')[1].split(', ');
    expect(uncoveredChanges(bundles, [{ ...WALLET_DISPLAY_NAME, operations: [...WALLET_DISPLAY_NAME.operations!, ...reached] }])).to.deep.equal([]);
    expect(uncoveredChanges(), 'the shipped changes').to.deep.equal([]);
  });

  it('a webhook payload is rendered down for an endpoint at an older version, and only for the events the change names', () => {
    const payload = { transaction_id: 't1', wallet_display_name: 'Ahmed' };
    for (const version of SUPPORTED_API_VERSIONS) {
      expect(TEST_BUILD.webhookDown('topup.complete', payload, version), version).to.deep.equal({ transaction_id: 't1', wallet_name: 'Ahmed' });
    }
    expect(TEST_BUILD.webhookDown('topup.complete', payload, 'v5')).to.deep.equal(payload);
    expect(TEST_BUILD.webhookDown('payout.pending', payload, 'v1')).to.deep.equal(payload);
  });

  it('a change must name a version after the first', () => {
    expect(() => new ApiVersioning(['v1', 'v2'], [{ ...WALLET_DISPLAY_NAME, version: 'v1' }])).to.throw(/not a version after the first/);
    expect(() => new ApiVersioning(['v1', 'v2'], [WALLET_DISPLAY_NAME])).to.throw(/v5/);
  });
});
