/**
 * The Arazzo workflows (workflows/*.arazzo.yaml) pass against the test service, as a
 * partner runs them against the sandbox: `npm run workflows -- --base <URL>`.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { baseUrl } from '../support/service.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('Arazzo workflows (redocly respect)', function () {
  this.timeout(300_000);

  it('every workflow passes against the running service', async () => {
    // Asynchronously: the service answering the workflows runs in this process.
    const run = await new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
      execFile(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/workflows.ts', '--base', baseUrl()], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } }, (err, stdout, stderr) =>
        resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`).to.equal(0);
    for (const file of ['quickstart', 'onboarding', 'payouts', 'cards']) expect(run.stdout).to.match(new RegExp(`✓ ${file}\\.arazzo\\.yaml`));
  });
});
