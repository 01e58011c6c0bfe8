/**
 * Corrections made from the object they correct, each with a review that says exactly what
 * will happen, an Idempotency-Key made once per review (./review.js), and offered only when
 * the session holds the permission the API asks for (`api.can`; the API refuses otherwise
 * and records each change in the audit log). Each component takes `api` and its object, and
 * calls `onDone(result)` after a success so that the page reads the object again.
 */
export { TransactionCorrections, refundableRemainder } from './transaction.js';
export { PayoutCorrections } from './payout.js';
export { CardCorrections } from './card.js';
export { WalletCorrections } from './wallet.js';
export { WhitelistManager } from './whitelist.js';
