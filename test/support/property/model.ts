/**
 * What a property run records: every logical operation, the HTTP attempts it made
 * (several for duplicate Idempotency-Keys and twin requests) and what each attempt got
 * back, plus the run's picture of each business (wallets, acknowledged payouts, …) from
 * which later operations pick their targets.
 */

/** The kinds of operation a run performs. `status` suspends or reactivates a wallet. */
export type OpKind = 'topup' | 'fund' | 'payout' | 'transfer' | 'withdrawal' | 'refund' | 'reversal' | 'status';

/** Ledger transaction types, as the API names them. */
export type TransactionType = 'TOPUP' | 'FUND' | 'PAYOUT' | 'TRANSFER' | 'WITHDRAWAL' | 'REFUND' | 'REVERSAL';

/**
 * Why an attempt was sent: `first`; `duplicate`, the same key and body at the same time
 * (to the other instance); `retry`, the same key and body once the first ones answered;
 * `reuse`, the same key with another body; `twin`, another request on the same target at
 * the same time without a key (a second reversal, a second refund).
 */
export type AttemptRole = 'first' | 'duplicate' | 'retry' | 'reuse' | 'twin';

/** One HTTP request of an operation and its outcome. */
export interface Attempt {
  role: AttemptRole;
  instance: string;
  method: 'POST' | 'PATCH';
  path: string;
  body: Record<string, unknown>;
  key?: string;
  /** Outcome keys this attempt may get on its own (`201`, `422 INSUFFICIENT_FUNDS`, …). */
  allowed: string[];
  /** HTTP status; undefined when unacknowledged (the connection dropped) or on a client error. */
  status?: number;
  code?: string;
  replayed?: boolean;
  /** Of a 201: the transaction id, its type and amount as answered, and a digest of the whole body. */
  id?: string;
  type?: string;
  amount?: string;
  digest?: string;
  /**
   * The connection dropped before a response, because the instance was killed while the
   * request was in flight: it may or may not have committed.
   */
  unacknowledged?: boolean;
  /** The contract check or the client failed (a finding). */
  error?: string;
}

/** One logical operation of the run. */
export interface LoggedOp {
  n: number;
  kind: OpKind;
  /** Which variant of the kind (e.g. `double` reversal, `pastCap` refund, `sameWallet` transfer). */
  variant: string;
  business: number;
  /** Transaction type an acknowledged attempt must have created. */
  type?: TransactionType;
  /** Amount that transaction must have (a reversal's is its original's). */
  amount?: string;
  attempts: Attempt[];
}

/** A wallet as the run knows it. `canOverdraft` is fixed at creation and never changed. */
export interface WalletModel {
  id: string;
  canOverdraft: boolean;
  suspended: boolean;
}

/** A business of the run and what it has acknowledged so far. */
export interface BusinessModel {
  index: number;
  id: string;
  token: string;
  wallets: WalletModel[];
  payouts: { id: string; amount: string }[];
  /** Acknowledged funds, payouts, transfers and withdrawals. */
  reversible: { id: string; amount: string }[];
  /** Transactions an acknowledged reversal has reversed. */
  reversed: string[];
  /** Payouts with an acknowledged refund (never reversible). */
  refundedPayouts: string[];
  /** Acknowledged top-ups, refunds and reversals (never reversible). */
  irreversible: string[];
}

/** The outcome key of an attempt: `201`, `422 CODE`, `unacknowledged` or `error`. */
export function outcomeOf(a: Attempt): string {
  if (a.unacknowledged) return 'unacknowledged';
  if (a.status === undefined) return 'error';
  return a.code && a.status >= 400 ? `${a.status} ${a.code}` : String(a.status);
}

/** True for an attempt that got a definitive answer (not unacknowledged, not 409 IDEMPOTENCY_KEY_IN_USE). */
export function definitive(a: Attempt): boolean {
  return a.status !== undefined && !(a.status === 409 && a.code === 'IDEMPOTENCY_KEY_IN_USE');
}

/** Everything a run produced. */
export interface RunLog {
  seed: number;
  ops: LoggedOp[];
  businesses: BusinessModel[];
  /** Money operations performed (status changes not counted). */
  moneyOps: number;
  requests: number;
  seconds: number;
}
