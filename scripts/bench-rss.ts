/**
 * `npx tsx scripts/bench-rss.ts`: the service's peak resident memory (VmHWM) through the bulk
 * payouts of `npm run bench` alone, without its seeding and its load scenarios, to bisect a
 * rise of the bench's peak RSS cheaply (one run: a first start, a timed start, then the bulk
 * scenarios of scripts/bench/bulk.ts).
 *
 * The service runs as `npm start` runs it, `node <FLAGS> scripts/start.mjs`, but with the Node
 * binary and flags given, so that the same code can be compared under two Node releases or two
 * heap settings, one run after the other on the same machine. Prints the start-up time, VmHWM
 * after start and after each bulk scenario (MiB), each scenario's seconds to created, all
 * COMPLETED and all events delivered, and VmRSS every 0.5 s (MiB) to show where the peak falls.
 * After each scenario it also prints what V8 held then, from the service's own `/metrics`
 * (prom-client's process metrics): the heap's size and use, its new and old spaces, and the
 * memory outside the heap (Buffers, ArrayBuffers), to tell heap sizing from data held.
 *
 * Environment: NODE_BIN (this process's node), FLAGS (`--max-semi-space-size=32`, as `npm start`),
 * BULKS (`1,10`: bulk payouts of 1,000 items at once, one scenario per entry; `1:no answer`,
 * `1:unresolvable host`, `1:refused connection`: the bench's isolation cases, the bulk payout
 * beside a dead endpoint of that kind), LIMIT (120: seconds before a stage is given up).
 * Linux only (reads /proc).
 */
import { spawn } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../src/db/embedded.js';
import { runBulkScenario, type DeadKind } from './bench/bulk.js';
import { peakRssMiB, ROOT, rssMiB, stop, waitHealthy, type Spawned } from './bench/processes.js';

const NODE = process.env.NODE_BIN ?? process.execPath;
const FLAGS = (process.env.FLAGS ?? '--max-semi-space-size=32').split(' ').filter(Boolean);
const BULKS = (process.env.BULKS ?? '1,10').split(',').map((entry) => {
  const [bulks, dead] = entry.split(':');
  return { bulks: Number(bulks), dead: dead as DeadKind | undefined };
});
const LIMIT = Number(process.env.LIMIT ?? 120);

const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-rss-'));
chmodSync(dataDir, 0o755); // PostgreSQL runs as the `postgres` user when we are root
const port = await freePort();
const env = {
  ...process.env,
  PAYOUT_PROCESSING_MS: '0',
  PORT: String(port),
  DATA_DIR: dataDir,
  RATE_LIMIT_PER_MINUTE: '100000000',
  RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '100000000',
  SANDBOX: 'true',
};
const logFile = path.join(dataDir, 'service.log');

/** The service on `dataDir`, its output appended to service.log. */
function startService(): Spawned {
  const fd = openSync(logFile, 'a');
  const child = spawn(NODE, [...FLAGS, 'scripts/start.mjs'], { cwd: ROOT, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  return { child, url: `http://127.0.0.1:${port}`, output: () => readFileSync(logFile, 'utf8').slice(-20_000) };
}

/** MiB of V8's heap and of memory outside it, from the service's `/metrics` (prom-client's process metrics). */
async function heapMiB(url: string): Promise<string> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (pattern: RegExp) => {
    const match = pattern.exec(text);
    return match ? (Number(match[1]) / 2 ** 20).toFixed(0) : '?';
  };
  return [
    `heap total ${value(/^nodejs_heap_size_total_bytes (\S+)/m)}`,
    `used ${value(/^nodejs_heap_size_used_bytes (\S+)/m)}`,
    `new space ${value(/^nodejs_heap_space_size_total_bytes\{space="new"\} (\S+)/m)}`,
    `old space ${value(/^nodejs_heap_space_size_total_bytes\{space="old"\} (\S+)/m)}`,
    `external ${value(/^nodejs_external_memory_bytes (\S+)/m)}`,
  ].join(', ');
}

let service = startService();
let failed = false;
try {
  await waitHealthy(service, 180_000);
  await stop(service.child);
  const t0 = performance.now();
  service = startService();
  await waitHealthy(service);
  const pid = service.child.pid!;
  console.log(`${NODE} ${FLAGS.join(' ')}: start ${((performance.now() - t0) / 1000).toFixed(2)} s, VmHWM after start ${peakRssMiB(pid).toFixed(0)} MiB`);
  const series: number[] = [];
  // The heap's figures when VmRSS was highest, read every other sample (a scrape costs the service a little).
  let top = { rss: 0, heap: '' };
  let tick = 0;
  const timer = setInterval(() => {
    const rss = rssMiB(pid);
    series.push(Math.round(rss));
    if (tick++ % 2 === 0) void heapMiB(service.url).then((heap) => rss >= top.rss && (top = { rss, heap }), () => undefined);
  }, 500);
  try {
    for (const { bulks, dead } of BULKS) {
      const r = await runBulkScenario(service.url, bulks, 1_000, LIMIT, undefined, dead);
      const s = (v: number) => (Number.isFinite(v) ? `${v.toFixed(1)} s` : 'timed out');
      console.log(`${bulks} × 1,000${dead ? ` beside a dead endpoint (${dead})` : ''}: created ${s(r.created)}, completed ${s(r.completed)}, delivered ${s(r.delivered)}; VmHWM ${peakRssMiB(pid).toFixed(0)} MiB; ${await heapMiB(service.url)} MiB`);
    }
  } finally {
    clearInterval(timer);
    console.log(`VmRSS every 0.5 s (MiB): ${series.join(' ')}`);
    console.log(`at the highest VmRSS sampled with the heap's figures (${top.rss.toFixed(0)} MiB): ${top.heap} MiB`);
  }
} catch (err) {
  console.error(err);
  failed = true;
} finally {
  await stop(service.child);
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
