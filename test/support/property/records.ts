/**
 * Judges a property run against what the database holds. Every operation's requests
 * carry an external_reference of their own (shared only by attempts with the same key
 * and body), so each can be matched with the transactions it made:
 * - an acknowledged transaction is there, with the id, type and amount answered;
 * - a request refused with a definitive answer made none;
 * - no key and no external_reference made more than one (exactly once);
 * - an unacknowledged request (its instance was killed) made at most one;
 * - the run's businesses hold no transaction the run did not ask for.
 * Then every acknowledged transaction is read back through GET /transactions/{id}.
 */
import { Decimal } from 'decimal.js';
import type { Knex } from 'knex';
import { get } from '../client.js';
import { definitive, type Attempt, type LoggedOp, type RunLog } from './model.js';
import { describeOp, type Violation } from './outcomes.js';

interface Row {
  id: string;
  business_id: string;
  type: string;
  amount: string;
  external_reference: string | null;
}

/** Unacknowledged requests' references: how many turned out committed. */
export interface Unacknowledged {
  committed: number;
  notCommitted: number;
}

const refOf = (a: Attempt): string => String(a.body.external_reference);

/** Matches the log with the transactions of the run's businesses. */
export async function recordViolations(db: Knex, log: RunLog): Promise<{ violations: Violation[]; unacknowledged: Unacknowledged }> {
  const ids = log.businesses.map((b) => b.id);
  // One business a query: on a database distributed by business (the Citus suite) each is one node's.
  const rows: Row[] = [];
  for (const id of ids) rows.push(...(await db('transactions').where('business_id', id).select('id', 'business_id', 'type', 'amount', 'external_reference')));
  const byRef = new Map<string, Row[]>();
  for (const r of rows) byRef.set(`${r.business_id}|${r.external_reference}`, [...(byRef.get(`${r.business_id}|${r.external_reference}`) ?? []), r]);
  const violations: Violation[] = [];
  const unacknowledged: Unacknowledged = { committed: 0, notCommitted: 0 };
  const accounted = new Set<string>();
  const fail = (rule: string, op: LoggedOp, why: string) => violations.push({ rule, detail: `${why}; ${describeOp(op)}` });

  for (const op of log.ops) {
    if (op.kind === 'status') continue;
    const bizId = log.businesses[op.business].id;
    const perKey = new Map<string, number>();
    for (const ref of new Set(op.attempts.map(refOf))) {
      const attempts = op.attempts.filter((a) => refOf(a) === ref);
      const found = byRef.get(`${bizId}|${ref}`) ?? [];
      accounted.add(`${bizId}|${ref}`);
      for (const key of new Set(attempts.map((a) => a.key))) if (key) perKey.set(key, (perKey.get(key) ?? 0) + found.length);
      if (found.length > 1) fail('exactly once: one transaction per request', op, `${found.length} transactions with external_reference ${ref}`);
      const acked = new Set(attempts.filter((a) => a.status === 201).map((a) => a.id));
      if (acked.size > 1) fail('exactly once: one transaction per request', op, `several ids acknowledged for ${ref}`);
      const amount = op.amount ?? (attempts[0].body.amount as string | undefined);
      const match = (t: Row) => t.type === op.type && (amount === undefined || new Decimal(t.amount).eq(amount));
      if (acked.size) {
        const t = found.find((x) => acked.has(x.id));
        if (!t) fail('every acknowledged transaction is stored', op, `no transaction ${[...acked][0]} (${ref}) in the database`);
        else if (!match(t)) fail('every acknowledged transaction is stored', op, `stored as ${t.type} ${t.amount}`);
      } else if (attempts.some((a) => definitive(a) && a.status! >= 400)) {
        if (found.length) fail('a refused request moves nothing', op, `${ref} refused, yet transaction ${found[0].id} exists`);
      } else if (attempts.some((a) => a.unacknowledged)) {
        if (found.length) unacknowledged.committed++;
        else unacknowledged.notCommitted++;
        if (found.length && !match(found[0])) fail('an unacknowledged request commits what it asked for', op, `stored as ${found[0].type} ${found[0].amount}`);
      }
    }
    for (const [key, count] of perKey) if (count > 1) fail('exactly once: one transaction per Idempotency-Key', op, `key ${key} made ${count} transactions`);
  }
  for (const [k, found] of byRef) {
    if (!accounted.has(k)) violations.push({ rule: 'every transaction was asked for', detail: `${found.length} transaction(s) ${found.map((t) => `${t.type} ${t.amount} ${t.id}`).join(', ')} with external_reference ${k}` });
  }
  return { violations, unacknowledged };
}

/** Reads every acknowledged transaction back through GET /cl/v1/transactions/{id}, spread over `urls`. */
export async function readBackViolations(log: RunLog, urls: readonly string[], concurrency: number): Promise<{ violations: Violation[]; read: number }> {
  const acked: { op: LoggedOp; a: Attempt }[] = [];
  const seen = new Set<string>();
  for (const op of log.ops) {
    for (const a of op.attempts) {
      if (op.kind !== 'status' && a.status === 201 && a.id && !seen.has(a.id)) {
        seen.add(a.id);
        acked.push({ op, a });
      }
    }
  }
  const violations: Violation[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < acked.length) {
      const i = next++;
      const { op, a } = acked[i];
      try {
        const res = await get(`/cl/v1/transactions/${a.id}`, { baseUrl: urls[i % urls.length], token: log.businesses[op.business].token });
        const ok = res.status === 200 && res.body.type === op.type && new Decimal(res.body.amount).eq(a.amount!) &&
          (op.kind !== 'refund' && op.kind !== 'reversal' ? true : res.body.original_transaction_id === (a.body.original_transaction_id ?? null));
        if (!ok) violations.push({ rule: 'every acknowledged transaction is readable', detail: `GET ${a.id} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}; ${describeOp(op)}` });
      } catch (err) {
        violations.push({ rule: 'every acknowledged transaction is readable', detail: `GET ${a.id}: ${String(err)}; ${describeOp(op)}` });
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { violations, read: acked.length };
}
