/**
 * A pgbouncer process of the test's own (Debian's `pgbouncer` package, 1.18 in
 * bookworm), in transaction pooling mode, in front of a PostgreSQL: for
 * test/platform/database/pooler.test.ts. It listens on a free loopback port, logs to its stderr (kept
 * for failure messages) and is stopped with SIGTERM. pgbouncer refuses to run as root:
 * as root it is started with `-u nobody` (it reads its configuration, then drops to
 * that user).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/db/embedded.js';

/** Where Debian installs pgbouncer (not on a normal user's PATH), then PATH. */
export function pgbouncerBinary(): string | undefined {
  for (const candidate of ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer', '/usr/local/sbin/pgbouncer']) {
    if (existsSync(candidate)) return candidate;
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, 'pgbouncer'))) return path.join(dir, 'pgbouncer');
  }
  return undefined;
}

/** A running pgbouncer of the test's own. */
export interface Pgbouncer {
  /** `databaseUrl` with its host and port replaced by pgbouncer's. */
  url: string;
  /** What pgbouncer wrote (its log). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts pgbouncer in transaction pooling mode in front of the PostgreSQL of
 * `databaseUrl` (postgres://user:password@host:port/db): every database name is
 * passed through, connecting as that user (`auth_type = any`).
 */
export async function startPgbouncer(binary: string, databaseUrl: string, poolSize = 20): Promise<Pgbouncer> {
  const target = new URL(databaseUrl);
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'wallet-pgbouncer-'));
  const config = path.join(dir, 'pgbouncer.ini');
  writeFileSync(
    config,
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port} user=${decodeURIComponent(target.username)} password=${decodeURIComponent(target.password)}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'auth_type = any',
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 1000',
      'unix_socket_dir =',
      '',
    ].join('\n'),
  );
  const args = [...(process.getuid?.() === 0 ? ['-u', 'nobody'] : []), config];
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (chunk: Buffer) => (log = (log + chunk.toString()).slice(-8000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  while (!/listening on 127\.0\.0\.1/.test(log)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`pgbouncer did not start:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return { url: url.toString(), output: () => log, stop };
}
