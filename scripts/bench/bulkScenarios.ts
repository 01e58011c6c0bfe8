/**
 * The bulk payout scenarios (./bulk.ts runs one): one bulk payout of 1,000 items; the same
 * three times with a dead webhook endpoint (unresolvable host, refused connection, no
 * answer) beside the receiver and on another business, its receiver's 3,000 events within
 * the same 10 s; then ten of 1,000 at once, timed to created, every payout COMPLETED and
 * every event delivered. Beside the ten, other traffic (the bench business's getWallet and
 * transfers, OTHER_RATE requests a second, an open loop) runs for their whole course; its p99
 * is compared with the same traffic's over OTHER_QUIET_SECONDS on the quiet service just
 * before, after OTHER_WARMUP_SECONDS of it not measured (the database was just checkpointed:
 * the first write to each page after a checkpoint logs the whole page, which would make the
 * quiet service look slower than it is). 30 s: about as many responses as beside the ten, so
 * that both p99s rest on the slowest 30-odd.
 *
 * Targets in seconds are scaled to the machine (BenchContext.machine); other traffic's p99
 * during the ten at most 2 × quiet, with no failure.
 */
import { runBulkScenario, type Alongside, type BulkResult, type DeadKind } from './bulk.js';
import type { BenchContext } from './context.js';
import { TARGETS_SET_AT_REFERENCE_TRANSFERS } from './context.js';
import { selected } from './knobs.js';
import { pacedLoad, type PacedResult } from './load.js';
import { printTable, times, type Check } from './print.js';
import { waitUntilQuiet } from './dataset.js';

const OTHER_RATE = 100;
const OTHER_WARMUP_SECONDS = 3;
const OTHER_QUIET_SECONDS = 30;

type Limits = { created: number; completed: number; delivered: number };
const isolated = (dead: DeadKind) => [`isolation: 1 × 1,000 items, dead endpoint: ${dead}`, 1, { created: Infinity, completed: Infinity, delivered: 10 }, dead] as const;
const RUNS: (readonly [string, number, Limits, DeadKind | undefined])[] = [
  ['bulk payout, 1 × 1,000 items', 1, { created: 2, completed: 5, delivered: 10 }, undefined],
  isolated('unresolvable host'),
  isolated('refused connection'),
  isolated('no answer'),
  ['bulk payouts, 10 × 1,000 items at once', 10, { created: Infinity, completed: 30, delivered: 60 }, undefined],
];

const wait = (seconds: number) => new Promise((r) => setTimeout(r, seconds * 1000));

/** Other traffic for the ten: measured quiet first, then started and stopped around them. */
async function otherTraffic(ctx: BenchContext, keep: (quiet: PacedResult, during: PacedResult) => void): Promise<Alongside> {
  const { transfer, getWallet } = ctx.requests.service;
  const request = () => (Math.random() < 0.5 ? transfer() : getWallet());
  const warmup = pacedLoad(ctx.serviceUrl, request, OTHER_RATE);
  await wait(OTHER_WARMUP_SECONDS);
  await warmup.stop();
  const quietLoad = pacedLoad(ctx.serviceUrl, request, OTHER_RATE);
  await wait(OTHER_QUIET_SECONDS);
  const quiet = await quietLoad.stop();
  let during: ReturnType<typeof pacedLoad> | undefined;
  return {
    start: () => void (during = pacedLoad(ctx.serviceUrl, request, OTHER_RATE)),
    stop: async () => {
      if (during) keep(quiet, await during.stop());
    },
  };
}

/** Runs the selected bulk scenarios; prints their tables; returns their checks. */
export async function runBulkScenarios(ctx: BenchContext): Promise<Check[]> {
  const runs: { name: string; result: BulkResult; limits: Limits }[] = [];
  let other: { quiet: PacedResult; during: PacedResult } | undefined;
  for (const [name, bulks, limits, dead] of RUNS.filter(([name]) => selected(name))) {
    const { factor } = await ctx.machine();
    await waitUntilQuiet(ctx.databaseUrl);
    const alongside = bulks === 10 ? await otherTraffic(ctx, (quiet, during) => (other = { quiet, during })) : undefined;
    // Gives up on a stage well after its target: at 1.2 × the longest target in seconds as scaled, at least 120 s.
    const giveUp = Math.max(120, ...Object.values(limits).filter(Number.isFinite).map((l) => 1.2 * l * factor));
    runs.push({ name, result: await runBulkScenario(ctx.serviceUrl, bulks, 1_000, giveUp, alongside, dead), limits });
    ctx.memory.mark(name);
  }
  if (runs.length === 0) return [];
  const machine = await ctx.machine();
  const s = (v: number) => (Number.isFinite(v) ? `${v.toFixed(1)} s` : 'timed out');
  printTable([['bulk payouts (sandbox rail, PAYOUT_PROCESSING_MS=0)', 56], ['payouts', 9], ['created', 10], ['completed', 11], ['events', 9]], runs.map((b) => [b.name, b.result.payouts, s(b.result.created), s(b.result.completed), s(b.result.delivered)]));
  console.log(`targets in seconds × ${machine.factor.toFixed(2)}: the reference's transfers at ${machine.referenceTransfers.toFixed(0)} req/s in this run, ${TARGETS_SET_AT_REFERENCE_TRANSFERS.toLocaleString('en')} where they were set`);
  const checks: Check[] = runs.flatMap((b) =>
    (['created', 'completed', 'delivered'] as const)
      .filter((stage) => Number.isFinite(b.limits[stage]))
      .map((stage) => {
        const what = { created: 'created', completed: 'all COMPLETED', delivered: `all ${3 * b.result.payouts} events delivered` }[stage];
        const limit = b.limits[stage] * machine.factor;
        return { what: `${b.name}: ${what} (${b.limits[stage]} s × ${machine.factor.toFixed(2)})`, value: s(b.result[stage]), target: `≤ ${limit.toFixed(1)} s`, met: b.result[stage] <= limit };
      }),
  );
  if (other) {
    const { quiet, during } = other;
    printTable(
      [[`other traffic: getWallet and transfers, ${OTHER_RATE} req/s`, 74], ['responses', 9], ['p50 ms', 8], ['p99 ms', 8], ['non-2xx/errors', 16], ['  statuses', 10]],
      ([[`quiet service (${OTHER_QUIET_SECONDS} s)`, quiet], ['during the 10 × 1,000 bulk payouts', during]] as const).map(([when, r]) => [when, r.responses, r.p50.toFixed(1), r.p99.toFixed(1), r.failures, `  ${r.statuses}`]),
    );
    const ratio = during.p99 / quiet.p99;
    checks.push({ what: 'other traffic during the 10 × 1,000 bulk payouts: p99 during/quiet', value: times(ratio), target: '≤ 2.00 ×', met: ratio <= 2 && quiet.failures + during.failures === 0 });
  }
  return checks;
}
