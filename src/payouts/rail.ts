/**
 * The payout rail: what settles a payout to a customer once the service has moved it
 * to PROCESSING (seed: `payout.pending` "waits for submission to the bank"). Behind this
 * interface, like the providers of src/providers/:
 *
 * - the sandbox rail (./sandboxRail.ts) decides by the amount's cents after
 *   PAYOUT_PROCESSING_MS, as the core document's Payouts tag lists;
 * - the HTTP rail (./httpRail.ts) submits the payout to a bank connector at
 *   PAYOUT_RAIL_URL and leaves it PROCESSING until the connector's signed callback
 *   (`receivePayoutRailResult`, ./railCallbacks.ts) completes or fails it. The protocol a
 *   connector implements is openapi/PAYOUT_RAIL.md.
 *
 * The processing jobs (src/payouts/processing.ts) call the rail; the rail never
 * moves a payout itself: it answers what should happen, and every move is `payout_move`.
 */
import type { Knex } from 'knex';
import type { FailureCode, PayoutState } from './states.js';

/** A payout as handed to the rail: the submission's body (openapi/PAYOUT_RAIL.md), amounts as numeric(20,2) strings. */
export interface RailPayout {
  payout_id: string;
  business_id: string;
  amount: string;
  currency: string;
  customer_id: string;
  wallet_account_number: string;
  purpose: string | null;
  external_reference: string | null;
  /** Reference of the creation's ledger transaction (`TXN…`), as E4 answered it. */
  transaction_id: string;
}

/** An outcome the service applies as soon as the rail answered, or null: the rail's callback decides. */
export type RailDecision = { event: 'COMPLETE' } | { event: 'FAIL'; failureCode: FailureCode } | null;

/** A job queue of the rail's own, for submissions that call out (pg-boss's retries are for a handler that threw). */
export interface RailQueue {
  name: string;
  concurrency: number;
  retryLimit: number;
  retryDelaySeconds: number;
  expireInSeconds: number;
}

/** A submission the rail did not take; it is made again after `retryDelayMs` of the rail. */
export class RailSubmissionFailed extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RailSubmissionFailed';
  }
}

/**
 * A payout rail: how PROCESSING payouts reach the bank and how its decision comes back
 * (the sandbox's, ./sandboxRail.ts, or a bank connector's over HTTP, ./httpRail.ts).
 */
export interface PayoutRail {
  /** The queue whose jobs hand payouts to the rail; null: the payout processing queue itself. */
  readonly queue: RailQueue | null;
  /** How long after it became PROCESSING a payout is handed to the rail (ms). */
  readonly submitAfterMs: number;
  /** False keeps a PENDING payout of `amount` PENDING, never submitted (the sandbox's `.98`). */
  submits(amount: string): boolean;
  /**
   * Hands a PROCESSING payout to the rail. Called at least once per payout (again after a
   * failure or a crash), so a rail deduplicates by `payout_id`. Resolves with an outcome to
   * apply now, or null when the rail's callback decides; throws RailSubmissionFailed when
   * the rail did not take it (made again after `retryDelayMs`). `signal` aborts when the
   * instance shuts down.
   */
  submit(payout: RailPayout, signal: AbortSignal): Promise<RailDecision>;
  /** How long after failed attempt number `attempt` (from 1) the submission is made again (ms). */
  retryDelayMs(attempt: number): number;
}

/** Payout `payoutId` of the business as the rail sees it, with its state; undefined when there is none. */
export async function railPayout(db: Knex, businessId: string, payoutId: string): Promise<(RailPayout & { status: PayoutState }) | undefined> {
  return railPayoutQuery(db, businessId).where({ 'p.id': payoutId }).first();
}

/** The query of the business's payouts as the rail sees them, with their state (narrow it by id). */
export function railPayoutQuery(db: Knex, businessId: string): Knex.QueryBuilder {
  return db('payouts as p')
    .join('accounts as w', (on) => on.on('w.business_id', 'p.business_id').andOn('w.id', 'p.wallet_id'))
    .join('transactions as c', (on) => on.on('c.business_id', 'p.business_id').andOn('c.id', 'p.creation_transaction_id'))
    .where({ 'p.business_id': businessId })
    .select(
      'p.id as payout_id', 'p.business_id', 'p.amount', 'p.currency', 'p.customer_id', 'w.account_number as wallet_account_number',
      'p.purpose', 'p.external_reference', 'c.reference as transaction_id', 'p.status',
    );
}
