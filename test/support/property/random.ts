/**
 * A tiny seeded PRNG (mulberry32) for the property tests: the same seed gives the
 * same stream of choices, so a failing run can be replayed from the seed it printed.
 */
import { Decimal } from 'decimal.js';

/** mulberry32: a 32-bit state, returns floats in [0, 1). */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Seeded random choices. */
export class Random {
  private readonly next: () => number;

  constructor(seed: number) {
    this.next = mulberry32(seed);
  }

  /** A generator of its own for item `index` of a run seeded with `seed` (independent of the order items run in). */
  static forItem(seed: number, index: number): Random {
    return new Random(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35));
  }

  /** A float in [0, 1). */
  float(): number {
    return this.next();
  }

  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One item of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** One key of `weights`, chosen in proportion to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    let r = this.next() * entries.reduce((sum, [, w]) => sum + w, 0);
    for (const [key, w] of entries) if ((r -= w) < 0) return key;
    return entries[entries.length - 1][0];
  }

  /**
   * An amount in [lo, hi] as the API takes it: a decimal string with zero, one or two
   * decimals ("12", "12.5", "12.34"), never a JS number on the way.
   */
  amount(lo: number, hi: number): string {
    const cents = new Decimal(this.int(lo * 100, hi * 100));
    const form = this.int(0, 5);
    if (form === 0 && cents.mod(100).isZero()) return cents.div(100).toFixed(0);
    if (form === 1 && cents.mod(10).isZero()) return cents.div(100).toFixed(1);
    return cents.div(100).toFixed(2);
  }
}

/** A fresh seed (printed by the runs) unless `fromEnv` holds one. */
export function seedFrom(fromEnv: string | undefined): number {
  if (fromEnv && /^\d+$/.test(fromEnv)) return Number(fromEnv) >>> 0;
  if (fromEnv) throw new Error(`the seed must be a non-negative integer, got "${fromEnv}"`);
  return Math.floor(Math.random() * 2 ** 32) >>> 0;
}
