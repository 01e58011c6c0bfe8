/**
 * SDK checks: the contract as integrators meet it. Clients are generated from the
 * bundled closed-loop document with openapi-typescript + openapi-fetch and with
 * @hey-api/openapi-ts (default settings, from node_modules, on the local file);
 * the quickstart programs of test/contract/sdk/ must compile with them under `strict`, and
 * run the README quickstart green against the service under test. Everything is
 * written to a folder under .tmp/ (git-ignored), removed afterwards.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { baseUrl } from '../support/service.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCUMENT = path.join(ROOT, 'generated/openapi/closed-loop.json');
const bin = (name: string) => path.join(ROOT, 'node_modules/.bin', name);

/** The compiler options an integrator's strict project would have; nothing else. */
const TSCONFIG = {
  compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', skipLibCheck: true, noEmit: true, types: ['node'] },
};

/**
 * Runs a command in `cwd` without blocking the event loop (the service under test
 * answers from this process); resolves to its output, rejects with it on failure.
 */
async function sh(command: string, args: string[], cwd: string): Promise<string> {
  try {
    const { stdout, stderr } = await promisify(execFile)(command, args, { cwd, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 16 << 20 });
    return stdout + stderr;
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    throw new Error(`${path.basename(command)} ${args.join(' ')} exited with ${e.code}:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

describe('generated clients (SDK checks)', () => {
  let dir: string;

  before(async function () {
    this.timeout(120_000);
    mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
    dir = mkdtempSync(path.join(ROOT, '.tmp', 'sdk-'));
    cpSync(path.join(ROOT, 'test/contract/sdk'), dir, { recursive: true });
    // Written first: hey-api picks its import style (`.js` extensions) from the nearest tsconfig.
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
    await Promise.all([
      sh(bin('openapi-typescript'), [DOCUMENT, '-o', 'openapi-fetch/schema.ts'], dir),
      sh(bin('openapi-ts'), ['-i', DOCUMENT, '-o', 'hey-api'], dir),
    ]);
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('both clients and the quickstart programs type-check under strict; wrong names are type errors', async function () {
    this.timeout(90_000);
    // typed-probes.ts holds one `@ts-expect-error` per wrong name: a probe that compiles fails tsc too.
    await sh(bin('tsc'), ['-p', '.'], dir);
  });

  for (const program of ['quickstart-openapi-fetch.ts', 'quickstart-hey-api.ts']) {
    it(`${program} runs the README quickstart: refunds 100.00 then 150.00, closing balance 200.00, CSV rows`, async function () {
      this.timeout(60_000);
      const output = await sh(bin('tsx'), [program, baseUrl()], dir);
      expect(output).to.match(/^quickstart with .+: OK$/m);
    });
  }
});
