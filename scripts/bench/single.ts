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
 * Targets, service/reference: req/s at least `target` × the reference's same request (or,
 * with `perReferenceTransfer`, × the reference's transfers between random wallets in this run:
 * cold rows, CPU-bound, whatever the disk's flush) with no failure, p99 at most `p99` × the
 * reference's same request. Beside them, PostgreSQL's time per request (pg_stat_statements,
 * ./statements.ts) and, after the funds, the ledger's fund rate called in SQL on one
 * connection: the HTTP funds at least HTTP_SHARE_OF_SQL × it, and PostgreSQL's time per
 * batched fund at most FUND_STATEMENT_SHARE × its time per transfer of the bare reference,
 * that statement also called in SQL on one connection (openapi/DESIGN.md, "Benchmark targets
 * relative to the bare stack").
 */
import type { BenchContext } from './context.js';
import { KNOBS, selected } from './knobs.js';
import { comparePair, type LoadRequest, type LoadResult } from './load.js';
import { printTable, times, type Check } from './print.js';
import { waitUntilQuiet } from './dataset.js';
import { sqlFunds, sqlReferenceTransfers, sqlWriteFloor } from './statements.js';

interface Single {
  name: string;
  target: number;
  /** The rate target is against the reference's transfers between random wallets, not its same request. */
  perReferenceTransfer?: boolean;
  p99: number;
  requests: (ctx: BenchContext) => { reference: () => LoadRequest; service: () => LoadRequest };
}

/**
 * PostgreSQL's time per batched fund (the ledger called in SQL on one connection: no lock
 * wait in it), at most this many times the write floor measured the same way in the same run:
 * the same funds' rows (keys, transactions, entries, balances) written by one plain statement
 * with the constraints' checks, which no posting in this schema can go below.
 */
const FUND_OVER_FLOOR = 1.5;
/** The HTTP funds' rate, at least this share of the ledger's fund rate in SQL on one connection. */
const HTTP_SHARE_OF_SQL = 0.75;

export const SINGLE: Single[] = [
  { name: 'transfer (random wallets)', target: 1.2, p99: 1.0, requests: ({ requests: r }) => ({ reference: r.reference.transfer, service: r.service.transfer }) },
  { name: 'fund (hot operational account)', target: 2.0, perReferenceTransfer: true, p99: 1.0, requests: ({ requests: r }) => ({ reference: r.reference.fund, service: r.service.fund }) },
  { name: 'getWallet', target: 0.85, p99: 1.2, requests: ({ requests: r }) => ({ reference: r.reference.getWallet, service: r.service.getWallet }) },
];

/** Runs the selected single-request scenarios; prints their tables; returns their checks. */
export async function runSingleScenarios(ctx: BenchContext): Promise<Check[]> {
  const rows: { s: Single; ref: LoadResult; svc: LoadResult }[] = [];
  let inSql: { perSecond: number; msPerFund: number } | undefined;
  let bareSql: { perSecond: number; msPerTransfer: number } | undefined;
  let floor: { checked: number; unchecked: number } | undefined;
  for (const s of SINGLE.filter((x) => selected(x.name))) {
    await waitUntilQuiet(ctx.databaseUrl);
    const { reference, service } = s.requests(ctx);
    const [ref, svc] = await comparePair(ctx.referenceTarget(reference), ctx.serviceTarget(service), { connections: KNOBS.connections, seconds: KNOBS.seconds, warmupSeconds: KNOBS.warmup });
    if (s === SINGLE[0]) ctx.noteReferenceTransfers(ref.requestsPerSecond);
    rows.push({ s, ref, svc });
    if (s.perReferenceTransfer) {
      await waitUntilQuiet(ctx.databaseUrl);
      inSql = await sqlFunds(ctx.databaseUrl, ctx.dataset.businessId, ctx.dataset.wallets, KNOBS.seconds / 2);
      bareSql = await sqlReferenceTransfers(ctx.databaseUrl, ctx.dataset.wallets, KNOBS.seconds / 2);
      const checked = await sqlWriteFloor(ctx.databaseUrl, ctx.dataset.businessId, ctx.dataset.wallets, KNOBS.seconds / 4, true);
      const unchecked = await sqlWriteFloor(ctx.databaseUrl, ctx.dataset.businessId, ctx.dataset.wallets, KNOBS.seconds / 4, false);
      floor = { checked: checked.msPerFund, unchecked: unchecked.msPerFund };
    }
    ctx.memory.mark(s.name);
  }
  if (rows.length === 0) return [];
  const referenceTransfers = (await ctx.machine()).referenceTransfers;
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
  const ms = (v: number | null) => (v === null ? '—' : v.toFixed(3));
  printTable(
    [['PostgreSQL ms per request', 32], ['reference', 11], ['service', 9]],
    rows.map((r) => [r.s.name, ms(r.ref.statementMsPerRequest), ms(r.svc.statementMsPerRequest)]),
  );
  console.log('PostgreSQL ms per request: execution time of top-level statements (pg_stat_statements; COMMIT and other utility statements left out), lock waits included, per response');
  const checks: Check[] = rows.flatMap(({ s, ref, svc }) => {
    const against = s.perReferenceTransfer ? referenceTransfers : ref.requestsPerSecond;
    const versus = s.perReferenceTransfer ? "the reference's transfers" : 'reference';
    return [
      { what: `${s.name}: req/s service/${versus}`, value: times(svc.requestsPerSecond / against), target: `≥ ${times(s.target)}`, met: svc.requestsPerSecond / against >= s.target && svc.failures === 0 },
      { what: `${s.name}: p99 service/reference`, value: times(svc.p99 / ref.p99), target: `≤ ${times(s.p99)}`, met: svc.p99 / ref.p99 <= s.p99 },
    ];
  });
  const funds = rows.find((r) => r.s.perReferenceTransfer);
  if (funds && inSql && bareSql) {
    console.log(`the ledger's funds in SQL (ledger_move_batch of 256 keyed funds, one connection): ${inSql.perSecond.toFixed(0)}/s, ${inSql.msPerFund.toFixed(3)} ms of PostgreSQL each; over HTTP: ${funds.svc.requestsPerSecond.toFixed(0)}/s`);
    console.log(`the reference's transfers in SQL (its one statement, one connection): ${bareSql.perSecond.toFixed(0)}/s, ${bareSql.msPerTransfer.toFixed(3)} ms of PostgreSQL each`);
    if (floor) {
      console.log(
        `the same funds' rows written by one plain statement (keys, transactions, entries, balances; rolled back): ${floor.checked.toFixed(3)} ms of PostgreSQL each, ${floor.unchecked.toFixed(3)} without the foreign keys' checks; the posting's rules, plan and answers: ${(inSql.msPerFund - floor.checked).toFixed(3)}`,
      );
    }
    console.log(`PostgreSQL per batched fund / per reference transfer (in SQL): ${times(inSql.msPerFund / bareSql.msPerTransfer)}`);
    if (floor) {
      const overFloor = inSql.msPerFund / floor.checked;
      checks.push({ what: `${funds.s.name}: PostgreSQL per batched fund / write floor (in SQL)`, value: times(overFloor), target: `≤ ${times(FUND_OVER_FLOOR)}`, met: overFloor <= FUND_OVER_FLOOR });
    }
    checks.push(
      { what: `${funds.s.name}: HTTP rate / rate in SQL`, value: times(funds.svc.requestsPerSecond / inSql.perSecond), target: `≥ ${times(HTTP_SHARE_OF_SQL)}`, met: funds.svc.requestsPerSecond / inSql.perSecond >= HTTP_SHARE_OF_SQL },
    );
  }
  return checks;
}
