/**
 * `npm run bench`: the service beside the bare reference (scripts/reference-server.ts) in
 * one run on one PostgreSQL, with autocannon on loopback; every target a ratio against the
 * reference in the same run, or a time scaled to the machine by it (openapi/DESIGN.md,
 * "Benchmark targets relative to the bare stack"). Settings: scripts/bench/knobs.ts.
 *
 * 1. The service started, timed and given its dataset, and the reference started (bench/context.ts).
 * 2. The scenarios, each a module of one shape (run it against the context, print its
 *    tables, return its targets): single requests beside the reference (bench/single.ts),
 *    bulk payouts (bench/bulkScenarios.ts), growth last, since it grows the ledger
 *    (bench/growthScenario.ts). The service's VmRSS is sampled every 250 ms and printed by
 *    phase, to show where the peak falls.
 * 3. The service's own targets (peak RSS, start-up), the ledger checked afterwards
 *    (balanced transactions, balances = entries, money conserved, no wallet below zero),
 *    and the table of targets, printed and written to docs/benchmark-results.md.
 *
 * `ONLY=citus` runs the service on a Citus cluster beside one PostgreSQL 15 instead
 * (bench/citus.ts). Exits 1 when a target is missed or the ledger check fails.
 */
import { runBulkScenarios } from './bench/bulkScenarios.js';
import { startBench, type BenchContext } from './bench/context.js';
import { runGrowth } from './bench/growthScenario.js';
import { KNOBS } from './bench/knobs.js';
import { printChecks, printTable, writeResults, type Check } from './bench/print.js';
import { peakRssMiB } from './bench/processes.js';
import { checkLedger } from './bench/dataset.js';
import { runSingleScenarios } from './bench/single.js';

/** The service's own targets (README, "Benchmark"): memory and start-up; the scenarios carry their own. */
const TARGETS = { rssMiB: 250, startSeconds: 3 };

if (KNOBS.only?.includes('citus')) {
  const { runCitusBench } = await import('./bench/citus.js');
  process.exit(await runCitusBench());
}

/** The service's memory by phase: VmHWM only rises, so the phase where it last rose holds the peak. */
function printMemory(ctx: BenchContext): void {
  const rows = ctx.memory.phases.map((m) => [m.name, m.maxRss.toFixed(0), m.endRss.toFixed(0), m.hwm.toFixed(0), `  ${m.endedAt.toISOString().slice(11, 19)}`]);
  printTable([['service memory by phase (MiB)', 60], ['max RSS', 9], ['at end', 8], ['VmHWM', 7], ['  ended (UTC)', 13]], rows);
}

let ctx: BenchContext | undefined;
let failed = true;
try {
  const settings = `${KNOBS.connections} connections, ${KNOBS.wallets} wallets, ${KNOBS.warmup} s warm-up + ${KNOBS.seconds} s per run, pool ${KNOBS.poolSize}${KNOBS.only ? `, only ${KNOBS.only.join(', ')}` : ', every scenario'}`;
  console.log(`wallet-service benchmark: ${settings}`);
  ctx = await startBench();
  const checks: Check[] = [];
  for (const scenario of [runSingleScenarios, runBulkScenarios, runGrowth]) checks.push(...(await scenario(ctx)));
  ctx.memory.stop();
  printMemory(ctx);
  const rss = peakRssMiB(ctx.servicePid);
  checks.push({ what: 'service peak RSS (VmHWM)', value: `${rss.toFixed(0)} MiB`, target: `≤ ${TARGETS.rssMiB} MiB`, met: rss <= TARGETS.rssMiB });
  const median = [...ctx.startups].sort((a, b) => a - b)[Math.floor(ctx.startups.length / 2)];
  checks.push({
    what: `start-up, npm start → /health 200 (median of ${ctx.startups.map((s) => s.toFixed(2)).join(', ')} s)`,
    value: `${median.toFixed(2)} s`,
    target: `≤ ${TARGETS.startSeconds} s`,
    met: median <= TARGETS.startSeconds,
  });
  const missed = printChecks(checks);
  const ledger = await checkLedger(ctx.databaseUrl, ctx.dataset.businessId);
  console.log(`\nledger check (${ledger.transactions} transactions): ${ledger.problems.length ? ledger.problems.join('; ') : 'balanced, balances and last entry times = entries, money conserved, no wallet below 0.00'}`);
  const verdict = missed ? `${missed} target(s) missed` : 'every target met';
  console.log(verdict);
  writeResults(checks, settings, [`Ledger check (${ledger.transactions} transactions): ${ledger.problems.length ? ledger.problems.join('; ') : 'balanced, money conserved'}. ${verdict}.`]);
  failed = missed > 0 || ledger.problems.length > 0;
} catch (err) {
  console.error(err);
  if (ctx) {
    ctx.memory.mark('until the failure above');
    printMemory(ctx);
  }
} finally {
  await ctx?.stop();
}
process.exit(failed ? 1 : 0);
