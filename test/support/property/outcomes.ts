/**
 * Judges the answers a property run got, from its log alone: every attempt got an
 * outcome documented for what it did (never a 5xx, never a contract break, a dropped
 * connection only from an instance that was killed), and the attempts sharing an
 * Idempotency-Key and body all got the same answer (a retry is a replay of it).
 */
import { Decimal } from 'decimal.js';
import { definitive, outcomeOf, type Attempt, type LoggedOp, type RunLog } from './model.js';

/** A broken rule, with what is needed to find the operation again (seed, number, attempts). */
export interface Violation {
  rule: string;
  detail: string;
}

const IN_USE = '409 IDEMPOTENCY_KEY_IN_USE';
const REUSED = '422 IDEMPOTENCY_KEY_REUSED';

/** An attempt in a line: role, instance, outcome, body. */
export function describeAttempt(a: Attempt): string {
  const outcome = a.error ? `error ${a.error}` : outcomeOf(a);
  return `${a.role} ${a.method} ${a.path} → ${a.instance} key=${a.key ?? '-'} body=${JSON.stringify(a.body)}: ${outcome}${a.id ? ` id=${a.id}` : ''}${a.replayed ? ' (replayed)' : ''}`;
}

/** An operation in a line, with its attempts. */
export function describeOp(op: LoggedOp): string {
  return `op #${op.n} ${op.kind}/${op.variant} business ${op.business}: ${op.attempts.map(describeAttempt).join(' | ')}`;
}

const sameAnswer = (a: Attempt, b: Attempt): boolean => a.status === b.status && a.code === b.code && a.digest === b.digest;

/** The outcome rule of one attempt, given the attempts of its operation sent before it. */
function allowedFor(op: LoggedOp, a: Attempt, before: Attempt[]): { ok: boolean; expected: string } {
  const outcome = outcomeOf(a);
  const lost = op.attempts.some((x) => x.unacknowledged);
  const sameBody = before.filter((x) => x.key === a.key && x.role !== 'reuse' && x.role !== 'twin');
  if (a.role === 'retry') {
    const answered = sameBody.find(definitive);
    if (answered) {
      const ok = sameAnswer(a, answered) && (a.status !== 201 || a.replayed === true);
      return { ok, expected: `a replay of ${outcomeOf(answered)}${answered.id ? ` ${answered.id}` : ''}` };
    }
  }
  if (a.role === 'reuse' && before.some(definitive)) return { ok: outcome === REUSED, expected: REUSED };
  const allowed = new Set(a.role === 'reuse' ? [...op.attempts[0].allowed, REUSED] : a.allowed);
  const concurrent = op.attempts.some((x) => x.role === 'duplicate');
  if (a.key && (concurrent || lost || a.role === 'reuse')) allowed.add(IN_USE);
  return { ok: allowed.has(outcome), expected: [...allowed].join(' or ') };
}

/** Violations of the outcome and idempotency rules in `log`. */
export function outcomeViolations(log: RunLog): Violation[] {
  const out: Violation[] = [];
  for (const op of log.ops) {
    op.attempts.forEach((a, i) => {
      if (a.error) {
        out.push({ rule: 'every response documented, never a 5xx', detail: `${describeAttempt(a)}\n    in ${describeOp(op)}` });
        return;
      }
      if (a.unacknowledged) return; // only ever recorded for an instance killed while the request was in flight
      const { ok, expected } = allowedFor(op, a, op.attempts.slice(0, i));
      if (!ok) out.push({ rule: 'every outcome is one the operation may have', detail: `expected ${expected}; ${describeOp(op)}` });
      const wrongType = op.type && a.type && a.type !== op.type;
      const wrongAmount = op.amount && a.amount && !new Decimal(a.amount).eq(op.amount);
      if (a.status === 201 && (wrongType || wrongAmount)) {
        out.push({ rule: 'acknowledged transactions have the type and amount asked for', detail: describeOp(op) });
      }
    });
    const keyed = op.attempts.filter((a) => a.key && a.role !== 'reuse' && definitive(a));
    if (keyed.some((a) => !sameAnswer(a, keyed[0]))) {
      out.push({ rule: 'exactly-once idempotency: one answer per key and body', detail: describeOp(op) });
    }
  }
  return out;
}

/** Outcome counts per operation kind: kind → outcome → count. */
export function outcomeCounts(log: RunLog): Map<string, Map<string, number>> {
  const counts = new Map<string, Map<string, number>>();
  for (const op of log.ops) {
    for (const a of op.attempts) {
      const perKind = counts.get(op.kind) ?? new Map<string, number>();
      const outcome = a.error ? 'error' : outcomeOf(a) + (a.replayed ? ' replayed' : '');
      perKind.set(outcome, (perKind.get(outcome) ?? 0) + 1);
      counts.set(op.kind, perKind);
    }
  }
  return counts;
}

/**
 * What a run of this size must have exercised (else the generator did not do what it
 * claims): an acknowledged transaction of each kind, each refusal it provokes,
 * replays, and duplicates sent to two instances at once.
 */
export function scenarioGaps(log: RunLog): string[] {
  const seen = new Set<string>();
  for (const op of log.ops) {
    for (const a of op.attempts) {
      seen.add(`${op.kind} ${outcomeOf(a)}`);
      seen.add(`${op.kind}/${op.variant} ${outcomeOf(a)}`);
      seen.add(outcomeOf(a));
      if (a.replayed) seen.add('replayed 201');
      if (a.role === 'duplicate' && a.instance !== op.attempts[0].instance) seen.add('duplicate key on both instances');
      if (a.role === 'twin' && a.instance !== op.attempts[0].instance) seen.add(`${op.kind} twin on both instances`);
    }
  }
  const wanted = [
    ...['topup', 'fund', 'payout', 'transfer', 'withdrawal', 'refund', 'reversal'].map((k) => `${k} 201`),
    'status 200',
    '422 INSUFFICIENT_FUNDS',
    '422 WALLET_NOT_ACTIVE',
    'refund/pastCap 422 REFUND_EXCEEDS_ORIGINAL',
    'refund 422 TRANSACTION_NOT_REFUNDABLE',
    'reversal/double 409 TRANSACTION_ALREADY_REVERSED',
    'reversal/refused 422 TRANSACTION_NOT_REVERSIBLE',
    'reversal/refundedPayout 422 TRANSACTION_NOT_REVERSIBLE',
    'transfer/sameWallet 422 SAME_WALLET_TRANSFER',
    REUSED,
    'replayed 201',
    'duplicate key on both instances',
    'refund twin on both instances',
    'reversal twin on both instances',
  ];
  return wanted.filter((w) => !seen.has(w));
}
