/**
 * Random operations of a property run. Each builder turns a seeded choice into a plan:
 * the logged operation and its attempts in groups (the attempts of a group are sent at
 * the same time, the groups one after the other). Every attempt carries the outcomes it
 * may get on its own; the rules that depend on other attempts (duplicates, retries,
 * reuse of a key) are judged afterwards (checks.ts).
 */
import { Decimal } from 'decimal.js';
import type { Attempt, BusinessModel, LoggedOp, OpKind, TransactionType, WalletModel } from './model.js';
import type { Random } from './random.js';

/** A logged operation and its attempts, grouped; instances are chosen when sent. */
export interface Plan {
  op: LoggedOp;
  groups: Attempt[][];
}

interface Context {
  rng: Random;
  biz: BusinessModel;
  n: number;
  seed: number;
}

const MOVEMENT = ['201', '422 INSUFFICIENT_FUNDS', '422 WALLET_NOT_ACTIVE'];
const REFUND = [...MOVEMENT, '422 REFUND_EXCEEDS_ORIGINAL', '422 TRANSACTION_NOT_REFUNDABLE'];
const REVERSAL = [...MOVEMENT, '409 TRANSACTION_ALREADY_REVERSED', '422 TRANSACTION_NOT_REVERSIBLE'];

/** Relative frequency of each money operation. */
export const WEIGHTS = { topup: 5, fund: 13, payout: 15, transfer: 22, withdrawal: 11, refund: 18, reversal: 16 } as const;
export type MoneyKind = keyof typeof WEIGHTS;

/** Mostly one of the latest items (still unreversed, unrefunded), sometimes any. */
function recent<T>(rng: Random, items: readonly T[]): T | undefined {
  if (!items.length) return undefined;
  return rng.chance(0.8) ? items[Math.max(0, items.length - 1 - rng.int(0, 39))] : rng.pick(items);
}

function attempt(role: Attempt['role'], path: string, body: Record<string, unknown>, allowed: string[], key?: string): Attempt {
  return { role, instance: '', method: 'POST', path, body, allowed, key };
}

/**
 * The attempts of one movement: without a key, one request; with a key (45%), maybe the
 * same key and body at the same time to the other instance, maybe a retry once answered,
 * maybe the same key with another body (another external_reference).
 */
function keyedGroups(ctx: Context, path: string, body: Record<string, unknown>, allowed: string[]): Attempt[][] {
  const { rng } = ctx;
  if (!rng.chance(0.45)) return [[attempt('first', path, body, allowed)]];
  const key = `k-${ctx.seed}-${ctx.n}`;
  const groups = [[attempt('first', path, body, allowed, key)]];
  if (rng.chance(0.35)) groups[0].push(attempt('duplicate', path, body, allowed, key));
  if (rng.chance(0.5)) groups.push([attempt('retry', path, body, allowed, key)]);
  if (rng.chance(0.15)) groups.push([attempt('reuse', path, { ...body, external_reference: `${body.external_reference}-x` }, ['422 IDEMPOTENCY_KEY_REUSED'], key)]);
  return groups;
}

function plan(ctx: Context, kind: OpKind, variant: string, type: TransactionType, amount: string | undefined, groups: Attempt[][]): Plan {
  return { op: { n: ctx.n, kind, variant, business: ctx.biz.index, type, amount, attempts: groups.flat() }, groups };
}

const ref = (ctx: Context): string => `p${ctx.n}`;
const wallet = (ctx: Context): WalletModel => ctx.rng.pick(ctx.biz.wallets);
/**
 * An amount to take out of wallet `w`: now and then a large one (out of an overdraft
 * wallet it goes below zero, out of another one it is mostly refused), else a modest one.
 */
const outOf = (ctx: Context, w: WalletModel): string =>
  ctx.rng.chance(w.canOverdraft ? 0.4 : 0.1) ? ctx.rng.amount(300, 3000) : ctx.rng.amount(0.01, 150);

function topup(ctx: Context): Plan {
  const body = { amount: ctx.rng.amount(1000, 20_000), external_reference: ref(ctx) };
  return plan(ctx, 'topup', 'plain', 'TOPUP', body.amount, keyedGroups(ctx, '/cl/v1/testhelpers/topups', body, ['201']));
}

function credit(ctx: Context, kind: 'fund' | 'payout'): Plan {
  // Now and then more than the operational account is likely to hold.
  const amount = ctx.rng.chance(0.04) ? ctx.rng.amount(20_000, 90_000) : ctx.rng.amount(0.01, 200);
  const body: Record<string, unknown> = { wallet_id: wallet(ctx).id, amount, external_reference: ref(ctx) };
  if (ctx.rng.chance(0.2)) body.currency = 'SAR';
  if (ctx.rng.chance(0.2)) body.notes = `property ${kind}`;
  const type = kind === 'fund' ? 'FUND' : 'PAYOUT';
  return plan(ctx, kind, 'plain', type, body.amount as string, keyedGroups(ctx, `/cl/v1/${kind}s`, body, MOVEMENT));
}

function transfer(ctx: Context): Plan {
  const source = wallet(ctx);
  if (ctx.rng.chance(0.05)) {
    const body = { source_wallet_id: source.id, destination_wallet_id: source.id, amount: ctx.rng.amount(0.01, 50), external_reference: ref(ctx) };
    return plan(ctx, 'transfer', 'sameWallet', 'TRANSFER', body.amount, keyedGroups(ctx, '/cl/v1/transfers', body, ['422 SAME_WALLET_TRANSFER']));
  }
  const others = ctx.biz.wallets.filter((w) => w !== source);
  const body = { source_wallet_id: source.id, destination_wallet_id: ctx.rng.pick(others).id, amount: outOf(ctx, source), external_reference: ref(ctx) };
  return plan(ctx, 'transfer', 'plain', 'TRANSFER', body.amount, keyedGroups(ctx, '/cl/v1/transfers', body, MOVEMENT));
}

function withdrawal(ctx: Context): Plan {
  const w = wallet(ctx);
  const body = { wallet_id: w.id, amount: outOf(ctx, w), external_reference: ref(ctx) };
  return plan(ctx, 'withdrawal', 'plain', 'WITHDRAWAL', body.amount, keyedGroups(ctx, '/cl/v1/withdrawals', body, MOVEMENT));
}

/**
 * Refunds: linked to a recent payout within its amount, past its cap (more than the
 * payout: never accepted), of its whole amount, from another wallet, two at once whose
 * sum passes the cap (`twin`), or unlinked (a wallet only).
 */
function refund(ctx: Context): Plan {
  const { rng } = ctx;
  const payout = recent(rng, ctx.biz.payouts);
  const variant = payout ? rng.weighted({ within: 50, pastCap: 15, whole: 10, otherWallet: 8, twin: 10, unlinked: 7 }) : 'unlinked';
  const path = '/cl/v1/refunds';
  if (variant === 'unlinked' || !payout) {
    const body = { wallet_id: wallet(ctx).id, amount: rng.amount(0.01, 100), external_reference: ref(ctx) };
    return plan(ctx, 'refund', 'unlinked', 'REFUND', body.amount, keyedGroups(ctx, path, body, MOVEMENT));
  }
  const cap = new Decimal(payout.amount);
  const cents = (d: Decimal): string => Decimal.max(d.toDecimalPlaces(2, Decimal.ROUND_DOWN), '0.01').toFixed(2);
  const amount = {
    within: () => cents(cap.mul(rng.float() * 0.4)),
    pastCap: () => cap.plus(rng.amount(0.01, 50)).toFixed(2),
    whole: () => cap.toFixed(2),
    otherWallet: () => cents(cap.mul(rng.float() * 0.3)),
    twin: () => cents(cap.mul(0.6)),
  }[variant]();
  const body: Record<string, unknown> = { original_transaction_id: payout.id, amount, external_reference: ref(ctx) };
  if (variant === 'otherWallet') body.wallet_id = wallet(ctx).id;
  const allowed = variant === 'pastCap' ? ['422 REFUND_EXCEEDS_ORIGINAL', '422 TRANSACTION_NOT_REFUNDABLE'] : REFUND;
  if (variant === 'twin') {
    const twin = attempt('twin', path, { ...body, external_reference: `${body.external_reference}-t` }, REFUND);
    return plan(ctx, 'refund', variant, 'REFUND', amount, [[attempt('first', path, body, REFUND), twin]]);
  }
  return plan(ctx, 'refund', variant, 'REFUND', amount, keyedGroups(ctx, path, body, allowed));
}

/**
 * Reversals: of a recent reversible transaction, of one twice at once (`twin`), of one
 * already reversed (`double`: 409 TRANSACTION_ALREADY_REVERSED), of a top-up, refund or
 * reversal (`refused`) or of a refunded payout (`refundedPayout`), both 422
 * TRANSACTION_NOT_REVERSIBLE.
 */
function reversal(ctx: Context): Plan | null {
  const { rng, biz } = ctx;
  const variant = rng.weighted({ fresh: 47, twin: 15, double: 14, refused: 12, refundedPayout: 12 });
  const path = '/cl/v1/reversals';
  const body = (id: string, suffix = ''): Record<string, unknown> => ({ original_transaction_id: id, external_reference: `${ref(ctx)}${suffix}` });
  if (variant === 'double' && biz.reversed.length) {
    const id = recent(rng, biz.reversed)!;
    return plan(ctx, 'reversal', variant, 'REVERSAL', undefined, keyedGroups(ctx, path, body(id), ['409 TRANSACTION_ALREADY_REVERSED']));
  }
  const refused = variant === 'refused' ? biz.irreversible : variant === 'refundedPayout' ? biz.refundedPayouts : [];
  if (refused.length) {
    const id = recent(rng, refused)!;
    return plan(ctx, 'reversal', variant, 'REVERSAL', undefined, keyedGroups(ctx, path, body(id), ['422 TRANSACTION_NOT_REVERSIBLE']));
  }
  const target = recent(rng, biz.reversible);
  if (!target) return null;
  if (variant === 'twin') {
    return plan(ctx, 'reversal', variant, 'REVERSAL', target.amount, [[attempt('first', path, body(target.id), REVERSAL), attempt('twin', path, body(target.id, '-t'), REVERSAL)]]);
  }
  return plan(ctx, 'reversal', 'fresh', 'REVERSAL', target.amount, keyedGroups(ctx, path, body(target.id), REVERSAL));
}

/** A plan for one random money operation (a fund when the chosen kind has nothing to act on yet). */
export function moneyOperation(ctx: Context): Plan {
  const kind = ctx.rng.weighted(WEIGHTS);
  switch (kind) {
    case 'topup':
      return topup(ctx);
    case 'fund':
    case 'payout':
      return credit(ctx, kind);
    case 'transfer':
      return transfer(ctx);
    case 'withdrawal':
      return withdrawal(ctx);
    case 'refund':
      return refund(ctx);
    case 'reversal':
      return reversal(ctx) ?? credit(ctx, 'fund');
  }
}

/** Suspends a wallet, or (mostly, when one is suspended) reactivates one: few wallets stay suspended. */
export function statusChange(ctx: Context): Plan {
  const suspended = ctx.biz.wallets.filter((w) => w.suspended);
  const w = suspended.length && ctx.rng.chance(0.85) ? ctx.rng.pick(suspended) : wallet(ctx);
  const status = w.suspended ? 'ACTIVE' : 'SUSPENDED';
  w.suspended = !w.suspended; // what the run intends; the answer confirms it
  const a: Attempt = { role: 'first', instance: '', method: 'PATCH', path: `/cl/v1/wallets/${w.id}`, body: { status }, allowed: ['200'] };
  return { op: { n: ctx.n, kind: 'status', variant: status, business: ctx.biz.index, attempts: [a] }, groups: [[a]] };
}

export type { Context as PlanContext };
