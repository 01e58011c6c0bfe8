/**
 * Ledger transactions counted where they are posted: every TypeScript call of a function that
 * posts reports what its answer says it posted just now. The ledger's `ledger_move`,
 * `ledger_move_keyed` and a batched movement's item of `ledger_move_batch` are reported where
 * the movement's answer comes back (./ledger.ts `moveRaw`); the payouts' `payout_create`,
 * `payout_create_keyed`, `payout_create_batch`, `payout_move` and `payout_move_batch` where
 * they are called (src/payouts/). A posting carries its transaction's type, a payout move its
 * posting's type (`posted`); a refusal and a replayed Idempotency-Key (`held`) posted nothing.
 * The report waits for the commit (whenCommitted, src/db/committed.ts), so a rolled-back or
 * retried transaction counts nothing, and is the Knex event LEDGER_POSTED_EVENT on the pool,
 * which the metrics count (`ledger_transactions_total`, src/kernel/metrics/metrics.ts).
 */
import type { Knex } from 'knex';
import { whenCommitted } from '../db/committed.js';
import { LEDGER_POSTED_EVENT } from '../kernel/metrics/metrics.js';

/**
 * Reports the ledger transactions that one call of a posting function on `db` (a pool, or a
 * transaction on one) posted: `types` holds one transaction type per item of the call's
 * answer, null or undefined for an item that posted nothing. Emits one LEDGER_POSTED_EVENT
 * `{ type, count }` per type once committed; nothing when nothing was posted. Throws nothing.
 */
export function reportPosted(db: Knex, types: readonly (string | null | undefined)[]): void {
  const counts = new Map<string, number>();
  for (const type of types) if (type) counts.set(type, (counts.get(type) ?? 0) + 1);
  if (counts.size === 0) return;
  whenCommitted(db, (pool) => {
    for (const [type, count] of counts) pool.emit(LEDGER_POSTED_EVENT, { type, count });
  });
}
