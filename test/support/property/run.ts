/**
 * A whole property run, for the tests and `npm run property`: set up businesses and
 * wallets, run the random load over the instances, then check everything (answers,
 * database records, read-back, ledger invariants) and report it.
 */
import type { Knex } from 'knex';
import { ledgerInvariants, type InvariantResult } from '../ledgerInvariants.js';
import { Progress, runLoad } from './load.js';
import type { LoggedOp, RunLog } from './model.js';
import { outcomeCounts, outcomeViolations, scenarioGaps, type Violation } from './outcomes.js';
import { readBackViolations, recordViolations, type Unacknowledged } from './records.js';
import { setUpBusinesses } from './setup.js';
import type { Instances } from './transport.js';

export interface PropertyOptions {
  seed: number;
  /** Money operations (wallet status changes come on top). */
  operations: number;
  concurrency: number;
  businesses: number;
  walletsPerBusiness: number;
  overdraftWallets: number;
  /** No operation starts after this many milliseconds of load. */
  deadlineMs: number;
}

/** Sets up the businesses and runs the load; `progress` lets a caller act mid-load. */
export async function runProperty(instances: Instances, opts: PropertyOptions, progress = new Progress()): Promise<RunLog> {
  const log: LoggedOp[] = [];
  const businesses = await setUpBusinesses(instances, { ...opts }, log);
  const requestsBefore = instances.requests;
  const started = performance.now();
  const moneyOps = await runLoad({ ...opts, instances, businesses, log }, progress);
  const seconds = (performance.now() - started) / 1000;
  return { seed: opts.seed, ops: log, businesses, moneyOps, requests: instances.requests - requestsBefore, seconds };
}

/** Everything the checks found. */
export interface PropertyReport {
  log: RunLog;
  violations: Violation[];
  invariants: InvariantResult[];
  unacknowledged: Unacknowledged;
  read: number;
  gaps: string[];
  checkSeconds: number;
}

/** Checks a run: answers, records in `db`, read-back through `urls`, ledger invariants. */
export async function checkProperty(db: Knex, log: RunLog, urls: readonly string[], concurrency: number): Promise<PropertyReport> {
  const started = performance.now();
  const records = await recordViolations(db, log);
  const readBack = await readBackViolations(log, urls, concurrency);
  const invariants = await ledgerInvariants(db, log.businesses.map((b) => b.id));
  return {
    log,
    violations: [...outcomeViolations(log), ...records.violations, ...readBack.violations],
    invariants,
    unacknowledged: records.unacknowledged,
    read: readBack.read,
    gaps: scenarioGaps(log),
    checkSeconds: (performance.now() - started) / 1000,
  };
}

/** Every violation of a report, ledger invariants included. */
export function allViolations(report: PropertyReport): Violation[] {
  return [
    ...report.violations,
    ...report.invariants.filter((i) => i.offenders.length).map((i) => ({ rule: i.name, detail: JSON.stringify(i.offenders) })),
  ];
}

/** A readable summary: throughput, outcomes per kind, invariants, and the first violations. */
export function formatReport(report: PropertyReport, maxViolations = 20): string {
  const { log } = report;
  const statusChanges = log.ops.filter((o) => o.kind === 'status').length;
  const lines = [
    `seed ${log.seed}: ${log.moneyOps} money operations (+${statusChanges} wallet status changes), ${log.requests} requests in ${log.seconds.toFixed(1)} s = ${(log.moneyOps / log.seconds).toFixed(1)} ops/s`,
  ];
  for (const [kind, outcomes] of outcomeCounts(log)) {
    lines.push(`  ${kind.padEnd(10)} ${[...outcomes].sort((a, b) => b[1] - a[1]).map(([o, n]) => `${o} ×${n}`).join(', ')}`);
  }
  const u = report.unacknowledged;
  if (u.committed + u.notCommitted) lines.push(`  unacknowledged requests: ${u.committed} committed, ${u.notCommitted} not`);
  lines.push(`checks (${report.checkSeconds.toFixed(1)} s, ${report.read} acknowledged transactions read back):`);
  for (const i of report.invariants) lines.push(`  ${i.offenders.length ? 'FAIL' : 'ok  '} ${i.name}${i.offenders.length ? `: ${JSON.stringify(i.offenders).slice(0, 500)}` : ''}`);
  const rules = new Map<string, number>();
  for (const v of report.violations) rules.set(v.rule, (rules.get(v.rule) ?? 0) + 1);
  lines.push(`  ${report.violations.length ? 'FAIL' : 'ok  '} answers, records, idempotency and read-back${rules.size ? `: ${[...rules].map(([r, n]) => `${r} ×${n}`).join('; ')}` : ''}`);
  for (const v of report.violations.slice(0, maxViolations)) lines.push(`    - ${v.rule}: ${v.detail}`);
  if (report.gaps.length) lines.push(`  scenarios not exercised: ${report.gaps.join(', ')}`);
  return lines.join('\n');
}
