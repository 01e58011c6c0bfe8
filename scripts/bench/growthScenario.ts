/**
 * The growth scenario as `npm run bench` runs it (./growth.ts measures it), last since it
 * leaves the ledger millions of entries larger: the bench business grown by
 * KNOBS.growthTransfers transfers beside a business of the same shape with a fresh ledger,
 * each request kind in turns on both. Targets, grown/fresh: req/s at least 0.9 × with no
 * failure, p99 at most 1.2 ×. The CPU milliseconds per request in the service's node
 * process and in PostgreSQL, fresh → grown, tell a slower grown ledger's time spent in the
 * service from time spent in the database.
 */
import type { BenchContext } from './context.js';
import { growthRatios, runGrowthScenario } from './growth.js';
import { KNOBS, selected } from './knobs.js';
import { printTable, times, type Check } from './print.js';
import { serviceRequests } from './requests.js';
import { createDataset, waitUntilQuiet } from './dataset.js';

const GROWTH_TARGETS = { requestsPerSecond: 0.9, p99: 1.2 };

/** Runs the growth scenario when selected; prints its table; returns its checks. */
export async function runGrowth(ctx: BenchContext): Promise<Check[]> {
  if (!selected('growth')) return [];
  const control = await createDataset(ctx.serviceUrl, KNOBS.wallets);
  ctx.memory.mark(`growth: a business with a fresh ledger, ${KNOBS.wallets} wallets`);
  const g = await runGrowthScenario({
    serviceUrl: ctx.serviceUrl,
    databaseUrl: ctx.databaseUrl,
    grown: { token: ctx.dataset.token, businessId: ctx.dataset.businessId, ...ctx.requests.service },
    fresh: { token: control.token, businessId: control.businessId, ...serviceRequests(control) },
    transfers: KNOBS.growthTransfers,
    window: 1_000,
    load: { connections: KNOBS.growthConnections, seconds: KNOBS.growthSeconds, warmupSeconds: 1 },
    cpu: ctx.serviceCpu,
    waitUntilQuiet: () => waitUntilQuiet(ctx.databaseUrl),
    mark: (phase) => ctx.memory.mark(`growth: ${phase}`),
  });
  console.log(
    `\ngrowth: a fresh ledger of ${g.entriesFresh.toLocaleString('en')} entries beside one grown to ${g.entriesGrown.toLocaleString('en')} (busy wallet ${g.busyEntriesGrown.toLocaleString('en')}), history written in ${g.buildSeconds.toFixed(0)} s; in turns, ${KNOBS.growthConnections} connections, ${KNOBS.growthSeconds} s each`,
  );
  const cpu = (fresh: number, grown: number) => `${fresh.toFixed(2)} → ${grown.toFixed(2)}`;
  // Which failures, when there are any: `grown: 503×3 error×1`.
  const failing = (statuses: string, ledger: string) => {
    const bad = statuses.split(' ').filter((s) => s && !/^2\d\d×/.test(s));
    return bad.length ? `${ledger}: ${bad.join(' ')}` : '';
  };
  printTable(
    [['request', 44], ['fresh req/s', 12], ['grown', 8], ['fresh p99', 11], ['grown', 8], ['req/s', 7], ['p99', 7], ['non-2xx/errors', 16], ['  CPU ms/req node, database', 28], ['  statuses other than 2xx', 24]],
    g.rows.map((r) => {
      const ratio = growthRatios(r);
      return [r.name, r.fresh.requestsPerSecond.toFixed(0), r.grown.requestsPerSecond.toFixed(0), r.fresh.p99.toFixed(1), r.grown.p99.toFixed(1), ratio.requestsPerSecond.toFixed(2), ratio.p99.toFixed(2), r.fresh.failures + r.grown.failures, `  ${cpu(r.fresh.cpuPerRequest.server, r.grown.cpuPerRequest.server)}, ${cpu(r.fresh.cpuPerRequest.database, r.grown.cpuPerRequest.database)}`, `  ${failing(r.fresh.statuses, 'fresh')} ${failing(r.grown.statuses, 'grown')}`.trimEnd()];
    }),
  );
  return g.rows.flatMap((r) => {
    const { requestsPerSecond: rps, p99 } = growthRatios(r);
    return [
      { what: `growth, ${r.name}: req/s grown/fresh`, value: times(rps), target: `≥ ${times(GROWTH_TARGETS.requestsPerSecond)}`, met: rps >= GROWTH_TARGETS.requestsPerSecond && r.fresh.failures + r.grown.failures === 0 },
      { what: `growth, ${r.name}: p99 grown/fresh`, value: times(p99), target: `≤ ${times(GROWTH_TARGETS.p99)}`, met: p99 <= GROWTH_TARGETS.p99 },
    ];
  });
}
