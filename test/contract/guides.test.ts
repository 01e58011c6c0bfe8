/**
 * The guides run as written: every block fenced `sh` in README.md and docs/*.md, joined
 * top to bottom per file, runs with `bash -eo pipefail` against a fresh `npm start` (a
 * new temporary DATA_DIR on the embedded PostgreSQL, a free PORT; in the Citus suite, the
 * cluster's database, test/citus/). A file fails on a
 * non-zero exit, or when the service answered any of its requests with a 5xx (read from
 * the service's JSON request log lines on stdout), or when it sent the service no request
 * at all (its blocks ignored BASE and talked to something else).
 *
 * One service for every guide: each guide gets its own token and creates its own
 * customers, wallets and endpoints, so they share it (and `npm start`, which builds dist/
 * first when it is stale, is paid once). The guides run in file order; the one that moves
 * the demo business's sandbox clock (mobile-number-change.md) moves it forward only.
 * Each guide runs in a process group of its own, which is killed when it ends, so that a
 * webhook receiver a failed guide left behind cannot hold the run. Blocks not meant to run
 * (`npm start` itself, output samples) use another fence: `text`, `console`, `json`.
 *
 * GUIDES=<substring> runs only the files whose name contains it.
 * Needs bash, curl, jq and openssl (CI installs them).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { freePort } from '../../src/db/embedded.js';
import { testConfig } from '../support/service.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** How long `npm start` may take to answer /health: a first start builds dist/. */
const START_TIMEOUT_MS = 600_000;
/** How long one guide may run. */
const GUIDE_TIMEOUT_MS = 300_000;

/** The `sh` blocks of a Markdown text, in order (a fence of exactly ```sh). */
export function shBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  let current: string[] | undefined;
  for (const line of markdown.split('\n')) {
    if (current === undefined) {
      if (/^```sh\s*$/.test(line)) current = [];
    } else if (/^```\s*$/.test(line)) {
      blocks.push(current.join('\n'));
      current = undefined;
    } else {
      current.push(line);
    }
  }
  if (current !== undefined) throw new Error('an sh block is not closed');
  return blocks;
}

interface Guide {
  file: string;
  script: string;
}

function guides(): Guide[] {
  const files = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
  const only = process.env.GUIDES;
  return files
    .filter((file) => !only || file.includes(only))
    .map((file) => ({ file, script: shBlocks(readFileSync(path.join(ROOT, file), 'utf8')).join('\n\n') }))
    .filter((g) => g.script.trim() !== '');
}

/** Kills a process group, quietly when it is already gone. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** Waits until no process of the child's group is left; false after `ms`. */
async function groupGone(child: ChildProcess, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      process.kill(-child.pid!, 0);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

interface Service {
  process: ChildProcess;
  url: string;
  dataDir: string;
  /** The service's stdout, JSON log lines. */
  lines: string[];
  exited: Promise<void>;
}

async function startService(): Promise<Service> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-guides-'));
  chmodSync(dataDir, 0o755); // the embedded PostgreSQL runs as another user when the tests run as root
  const port = await freePort();
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      // The Citus suite runs the guides against npm start on the cluster's database, which the
      // suite's own service shares: cards sealed with the suite's keys (its leak check opens them).
      DATABASE_URL: process.env.CITUS_SUITE ? (process.env.DATABASE_URL ?? '') : '',
      ...(process.env.CITUS_SUITE
        ? {
            CARD_DATA_KEY: testConfig().cardDataKey,
            CARD_FINGERPRINT_KEY: testConfig().cardFingerprintKey,
            WEBHOOK_SECRET_KEY: testConfig().webhookSecretKey,
            IDEMPOTENCY_REPLAY_KEY: testConfig().idempotencyReplayKey,
            TOTP_SECRET_KEY: testConfig().totpSecretKey,
          }
        : {}),
      LOG_FILE: '',
      LOG_LEVEL: 'info',
      SANDBOX: 'true',
      PAYOUT_RAIL_URL: '',
    },
  });
  const lines: string[] = [];
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop()!;
    lines.push(...parts.filter(Boolean));
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const service: Service = { process: child, url: `http://127.0.0.1:${port}`, dataDir, lines, exited };
  const deadline = Date.now() + START_TIMEOUT_MS;
  let gone = false;
  void exited.then(() => (gone = true));
  while (Date.now() < deadline && !gone) {
    if (await fetch(`${service.url}/health`).then((r) => r.ok, () => false)) return service;
    await new Promise((r) => setTimeout(r, 500));
  }
  killGroup(child, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
  throw new Error(`npm start did not answer /health (${gone ? 'it exited' : 'time-out'}):\n${lines.slice(-20).join('\n')}\n${stderr.slice(-2000)}`);
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

async function runGuide(guide: Guide, env: NodeJS.ProcessEnv): Promise<Run> {
  const dir = mkdtempSync(path.join(tmpdir(), 'wallet-guide-'));
  const file = path.join(dir, 'guide.sh');
  writeFileSync(file, guide.script);
  const child = spawn('bash', ['-eo', 'pipefail', file], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), GUIDE_TIMEOUT_MS);
  // 'exit', not 'close': a background process the guide failed to stop would hold the pipes open.
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
  clearTimeout(timer);
  killGroup(child, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
  return { code, signal, output };
}

/** The request log lines among `lines`, parsed. */
function requests(lines: string[]): { status: number; method: string; path: string }[] {
  return lines.flatMap((line) => {
    try {
      const entry = JSON.parse(line);
      return entry.msg === 'request' ? [entry] : [];
    } catch {
      return [];
    }
  });
}

describe('the guides run as written (README.md and docs/*.md against a fresh npm start)', function () {
  this.timeout(START_TIMEOUT_MS + 60_000);
  let service: Service | undefined;

  before(async function () {
    service = await startService();
  });

  after(async function () {
    if (!service) return;
    // The whole group, not only npm: npm exits on SIGTERM before the service and its
    // embedded PostgreSQL have stopped, and a PostgreSQL left running holds its data dir.
    killGroup(service.process, 'SIGTERM');
    if (!(await groupGone(service.process, 20_000))) {
      killGroup(service.process, 'SIGKILL');
      await groupGone(service.process, 5_000);
    }
    rmSync(service.dataDir, { recursive: true, force: true });
  });

  it('finds guides to run, each setting BASE from the environment', () => {
    const found = guides();
    if (!process.env.GUIDES) expect(found.map((g) => g.file)).to.include.members(['README.md', 'docs/quickstart.md', 'docs/onboarding.md', 'docs/cards.md', 'docs/payouts.md', 'docs/webhooks.md', 'docs/mobile-number-change.md']);
    for (const g of found) expect(g.script, `${g.file}: its first sh block sets BASE=\${BASE:-http://localhost:3000}`).to.match(/^BASE=\$\{BASE:-http:\/\/localhost:3000\}$/m);
  });

  for (const guide of guides()) {
    it(`${guide.file}`, async function () {
      this.timeout(GUIDE_TIMEOUT_MS + 30_000);
      const s = service!;
      const from = s.lines.length;
      const run = await runGuide(guide, { ...process.env, BASE: s.url, RECEIVER_PORT: String(await freePort()) });
      await new Promise((r) => setTimeout(r, 500)); // the last request lines
      const answered = requests(s.lines.slice(from));
      const failures = answered.filter((r) => r.status >= 500).map((r) => `${r.status} ${r.method} ${r.path}`);
      // The service's errors during the guide (level 50 and up), to tell a failure's cause.
      const errors = s.lines.slice(from).filter((l) => /"level":(50|60)/.test(l)).slice(-5).map((l) => l.slice(0, 2000));
      const tail = `${run.output.split('\n').slice(-60).join('\n')}${errors.length ? `\nthe service's errors:\n${errors.join('\n')}` : ''}`;
      expect(run.code, `${guide.file} exited ${run.code ?? run.signal}; its output ends:\n${tail}`).to.equal(0);
      expect(failures, `${guide.file}: the service answered 5xx; the guide's output ends:\n${tail}`).to.deep.equal([]);
      expect(answered.length, `${guide.file} sent the service no request (does it use $BASE?)`).to.be.above(0);
    });
  }
});
