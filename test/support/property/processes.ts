/**
 * Service instances as processes of their own, the way `npm start` runs them
 * (`node --import tsx src/main.ts`), all on one embedded PostgreSQL that the caller
 * owns: for the instance-kill test and `npm run property`. Everything listens on
 * loopback ports chosen by the OS; stop() and kill() leave nothing behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, startEmbeddedPostgres } from '../../../src/db/embedded.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** An embedded PostgreSQL in a temporary directory. */
export interface Database {
  url: string;
  /** Stops PostgreSQL and deletes its directory. */
  stop(): Promise<void>;
}

/** Starts an embedded PostgreSQL in a fresh temporary directory (0755: it runs as `postgres` when we are root). */
export async function startDatabase(): Promise<Database> {
  const dir = mkdtempSync(path.join(tmpdir(), 'wallet-property-'));
  chmodSync(dir, 0o755);
  try {
    const pg = await startEmbeddedPostgres(dir, { persistent: false, quiet: true });
    return {
      url: pg.url,
      async stop() {
        await pg.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** A service process. */
export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** Resolves when the process has exited, with its exit code or signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The last lines it wrote to stdout and stderr (for failure messages). */
  output(): string;
}

/**
 * Starts src/main.ts on `databaseUrl` and a free port, with the rate limit off and
 * day-long tokens (a long run outlasts the default hour), and `env` on top (e.g.
 * LOG_FILE); resolves once /health answers.
 */
export async function startServiceProcess(databaseUrl: string, timeoutMs = 90_000, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      RATE_LIMIT_PER_MINUTE: '0',
      RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '0',
      TOKEN_TTL_SECONDS: '86400',
      SANDBOX: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const service: ServiceProcess = { url: `http://127.0.0.1:${port}`, child, exited, output: () => tail };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
    if (await fetch(`${service.url}/health`).then((r) => r.ok, () => false)) return service;
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGKILL');
  await exited;
  throw new Error(`the service process did not start in ${timeoutMs / 1000} s:\n${tail}`);
}

/** Kills `service` with `signal` (SIGKILL by default) and waits for it to be gone. */
export async function killServiceProcess(service: ServiceProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill(signal);
  await service.exited;
}
