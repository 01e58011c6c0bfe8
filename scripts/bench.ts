/**
 * Benchmark: money movement throughput on a fresh embedded PostgreSQL.
 * Starts the service in-process, creates a business with WALLETS wallets,
 * then runs TRANSFERS transfers between random wallets with CONCURRENCY
 * requests in flight, all on loopback, and prints throughput, latency
 * percentiles (ms) and the process's resident memory.
 *
 *   npm run bench                       (defaults: 2000 transfers, 16 in flight, 20 wallets)
 *   TRANSFERS=5000 CONCURRENCY=32 npm run bench
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { startService } from '../src/server.js';

const TRANSFERS = Number(process.env.TRANSFERS ?? 2000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const WALLETS = Number(process.env.WALLETS ?? 20);

const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-bench-'));
chmodSync(dataDir, 0o755);
const service = await startService({ ...loadConfig(), port: 0, dataDir, rateLimitPerMinute: 0, sandbox: true }, { persistent: false, quiet: true });

async function call(method: string, p: string, token: string | null, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${service.url}/cl/v1${p}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

try {
  const platform = (await call('POST', '/auth/token', null, { grant_type: 'client_credentials', client_id: 'sandbox-platform', client_secret: 'sandbox-platform-secret' })).body.access_token;
  const biz = (await call('POST', '/businesses', platform, { name: 'Bench' })).body;
  const token = (await call('POST', '/auth/token', null, { grant_type: 'client_credentials', ...biz.credentials })).body.access_token;
  await call('POST', '/testhelpers/topups', token, { amount: String(WALLETS * 1000) });
  const wallets: string[] = [];
  for (let i = 0; i < WALLETS; i++) {
    const w = (await call('POST', '/wallets', token, { name: `w${i}` })).body;
    await call('POST', '/funds', token, { wallet_id: w.id, amount: '1000.00' });
    wallets.push(w.id);
  }

  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < TRANSFERS) {
        const i = next++;
        const from = wallets[i % WALLETS];
        const to = wallets[(i + 1 + (i % (WALLETS - 1))) % WALLETS]; // offset 1..WALLETS-1: never the source
        const t0 = performance.now();
        const res = await call('POST', '/transfers', token, { source_wallet_id: from, destination_wallet_id: to, amount: '1.25' });
        latencies.push(performance.now() - t0);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(1);
  console.log(`transfers: ${TRANSFERS}, concurrency: ${CONCURRENCY}, wallets: ${WALLETS}`);
  console.log(`statuses: ${[...statuses].map(([s, n]) => `${s}×${n}`).join(', ')}`);
  console.log(`throughput: ${(TRANSFERS / seconds).toFixed(0)} transfers/s over ${seconds.toFixed(1)} s`);
  console.log(`latency ms: p50 ${pct(50)}, p95 ${pct(95)}, p99 ${pct(99)}, max ${latencies[latencies.length - 1].toFixed(1)}`);
  console.log(`server process RSS: ${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MiB (service and load generator share the process)`);
} finally {
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
}
