/**
 * The single-request scenarios: the service beside the reference, each after VACUUM
 * ANALYZE and CHECKPOINT (so that neither lands in one server's turn), KNOBS.warmup seconds
 * thrown away, then KNOBS.seconds measured each with KNOBS.connections connections in eight
 * alternating turns (./load.ts), so that the ratio is fair on a machine whose load changes.
 * p50 and p99 leave out the first response on each connection of a turn (a set-up burst);
 * `p99 all` includes them. Around each turn the CPU time of the server's process, of the
 * database cluster and of the load generator is read: CPU milliseconds per request, whose
 * sum bounds the rate on a machine whose cores they share.
 *
 * Targets, service/reference: req/s at least `target` × with no failure, p99 at most `p99` ×.
 */
import type { BenchContext } from './context.js';
import { KNOBS, selected } from './knobs.js';
import { comparePair, type LoadRequest, type LoadResult } from './load.js';
import { printTable, times, type Check } from './print.js';
import { settle } from './seed.js';

interface Single {
  name: string;
  target: number;
  p99: number;
  requests: (ctx: BenchContext) => { reference: () => LoadRequest; service: () => LoadRequest };
}

export const SINGLE: Single[] = [
  { name: 'transfer (random wallets)', target: 1.0, p99: 1.0, requests: ({ requests: r }) => ({ reference: r.reference.transfer, service: r.service.transfer }) },
  { name: 'fund (hot operational account)', target: 3.0, p99: 1.0, requests: ({ requests: r }) => ({ reference: r.reference.fund, service: r.service.fund }) },
  { name: 'getWallet', target: 0.85, p99: 1.2, requests: ({ requests: r }) => ({ reference: r.reference.getWallet, service: r.service.getWallet }) },
];

/** Runs the selected single-request scenarios; prints their tables; returns their checks. */
export async function runSingleScenarios(ctx: BenchContext): Promise<Check[]> {
  const rows: { s: Single; ref: LoadResult; svc: LoadResult }[] = [];
  for (const s of SINGLE.filter((x) => selected(x.name))) {
    await settle(ctx.databaseUrl);
    const { reference, service } = s.requests(ctx);
    const [ref, svc] = await comparePair(ctx.referenceTarget(reference), ctx.serviceTarget(service), { connections: KNOBS.connections, seconds: KNOBS.seconds, warmupSeconds: KNOBS.warmup });
    if (s === SINGLE[0]) ctx.noteReferenceTransfers(ref.requestsPerSecond);
    rows.push({ s, ref, svc });
    ctx.memory.mark(s.name);
  }
  if (rows.length === 0) return [];
  const both = (r: (typeof rows)[number]) => [['reference', r.ref], ['service', r.svc]] as const;
  printTable(
    [['scenario', 32], ['server', 11], ['req/s', 8], ['p50 ms', 8], ['p99 ms', 8], ['p99 all', 9], ['non-2xx/errors', 16], ['  statuses', 10]],
    rows.flatMap((r) => both(r).map(([who, x]) => [who === 'reference' ? r.s.name : '', who, x.requestsPerSecond.toFixed(0), x.p50.toFixed(1), x.p99.toFixed(1), x.p99All.toFixed(1), x.failures, `  ${x.statuses}`])),
  );
  const setup = rows.reduce((n, r) => n + r.ref.setupResponses + r.svc.setupResponses, 0);
  console.log(`p50, p99: all responses but the first on each connection of a turn (${setup} left out: a set-up burst per turn); p99 all: every response`);
  printTable(
    [['CPU ms per request', 32], ['server', 11], ['node', 9], ['database', 9], ['load', 9], ['total', 9]],
    rows.flatMap((r) => both(r).map(([who, { cpuPerRequest: c }]) => [who === 'reference' ? r.s.name : '', who, ...[c.server, c.database, c.load, c.server + c.database + c.load].map((v) => v.toFixed(2))])),
  );
  return rows.flatMap(({ s, ref, svc }) => [
    { what: `${s.name}: req/s service/reference`, value: times(svc.requestsPerSecond / ref.requestsPerSecond), target: `≥ ${times(s.target)}`, met: svc.requestsPerSecond / ref.requestsPerSecond >= s.target && svc.failures === 0 },
    { what: `${s.name}: p99 service/reference`, value: times(svc.p99 / ref.p99), target: `≤ ${times(s.p99)}`, met: svc.p99 / ref.p99 <= s.p99 },
  ]);
}
