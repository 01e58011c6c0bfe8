/**
 * The load of a property run: CONCURRENCY workers take operation numbers from one
 * counter until OPERATIONS money operations have been performed (or the deadline has
 * passed), each from its own seeded generator (so a seed replays the same choices; the
 * interleaving, and so what later operations find acknowledged, varies), against the
 * instances live at the time. Acknowledged results feed the businesses' pools.
 */
import type { Attempt, BusinessModel, LoggedOp } from './model.js';
import { moneyOperation, statusChange, type Plan } from './operations.js';
import { Random } from './random.js';
import type { Instances } from './transport.js';

export interface LoadOptions {
  seed: number;
  operations: number;
  concurrency: number;
  instances: Instances;
  businesses: BusinessModel[];
  /** The log to append to (it already holds the opening operations). */
  log: LoggedOp[];
  /** Stop starting operations after this many milliseconds. */
  deadlineMs: number;
  /** Chance of a wallet status change before a money operation. */
  statusChangeRate?: number;
}

/**
 * How far a load has got, read by a test that kills an instance mid-load; it can also
 * hold the load before operation `at` until released (so that a restarted instance is
 * back before the end).
 */
export class Progress {
  started = 0;
  finished = 0;
  holdAt = Infinity;
  private resume: () => void = () => undefined;
  held: Promise<void> = Promise.resolve();

  /** Operations from number `at` on wait for release(). */
  hold(at: number): void {
    this.holdAt = at;
    this.held = new Promise((resolve) => (this.resume = resolve));
  }

  release(): void {
    this.holdAt = Infinity;
    this.resume();
  }

  /** Why the load was stopped early (no operation starts after stop()). */
  stopped?: string;

  stop(reason: string): void {
    this.stopped ??= reason;
    this.release();
  }
}

/** Chooses the instances of a group: a random live one, the others to a different one when there is one. */
function assignInstances(rng: Random, live: readonly string[], group: Attempt[]): void {
  const first = rng.pick(live);
  group.forEach((a, i) => {
    const others = live.filter((u) => u !== first);
    a.instance = i === 0 || !others.length ? first : rng.pick(others);
  });
}

/** Feeds what an acknowledged attempt created into the business's pools. */
function learn(biz: BusinessModel, op: LoggedOp, a: Attempt): void {
  if (op.kind === 'status') {
    if (a.status !== 200) {
      const w = biz.wallets.find((x) => a.path.endsWith(x.id));
      if (w) w.suspended = !w.suspended; // the change did not happen
    }
    return;
  }
  if (a.status !== 201 || !a.id || a.replayed) return;
  if (op.kind === 'topup' || op.kind === 'refund') biz.irreversible.push(a.id);
  if (op.kind === 'refund' && a.body.original_transaction_id) biz.refundedPayouts.push(a.body.original_transaction_id as string);
  if (op.kind === 'reversal') {
    biz.irreversible.push(a.id);
    biz.reversed.push(a.body.original_transaction_id as string);
  }
  if (op.kind === 'fund' || op.kind === 'payout' || op.kind === 'transfer' || op.kind === 'withdrawal') biz.reversible.push({ id: a.id, amount: a.amount! });
  if (op.kind === 'payout') biz.payouts.push({ id: a.id, amount: a.amount! });
}

async function perform(opts: LoadOptions, plan: Plan, rng: Random): Promise<void> {
  const biz = opts.businesses[plan.op.business];
  opts.log.push(plan.op);
  for (const group of plan.groups) {
    const live = opts.instances.list();
    if (!live.length) return;
    assignInstances(rng, live, group);
    await Promise.all(group.map((a) => opts.instances.send(a, biz.token)));
    for (const a of group) learn(biz, plan.op, a);
  }
}

/** Runs the load; resolves when every worker has stopped. Returns the money operations performed. */
export async function runLoad(opts: LoadOptions, progress = new Progress()): Promise<number> {
  const until = Date.now() + opts.deadlineMs;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < opts.operations && Date.now() < until && !progress.stopped) {
      if (next >= progress.holdAt) {
        await progress.held;
        continue;
      }
      const n = next++;
      progress.started++;
      const rng = Random.forItem(opts.seed, n);
      const biz = rng.pick(opts.businesses);
      const ctx = { rng, biz, n, seed: opts.seed };
      if (rng.chance(opts.statusChangeRate ?? 0.015)) await perform(opts, statusChange(ctx), rng);
      await perform(opts, moneyOperation(ctx), rng);
      progress.finished++;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  return progress.finished;
}
