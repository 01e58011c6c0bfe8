/**
 * The payouts' face (src/kernel/capability.ts): payout processing on the job queue, handing
 * payouts to the rail the configuration names (src/payouts/rails.ts: PAYOUT_RAIL_URL, else
 * the sandbox rail).
 */
import { NOTHING_TO_STOP, type StartContext, type Started } from '../kernel/capability.js';
import { startPayoutProcessing } from './processing.js';
import { payoutRailOf } from './rails.js';

/** Starts payout processing: its queues' workers, which stop with the job queue. */
export async function start({ db, jobs, config, log }: StartContext): Promise<Started> {
  await startPayoutProcessing({ db, jobs, rail: payoutRailOf(config, log) });
  return { stop: NOTHING_TO_STOP };
}

// What the handlers and the capabilities above call (the face is the only door: .dependency-cruiser.cjs).
export { actorOf, approvePayoutApproval, createPayoutApproval, getPayoutApproval, listPayoutApprovals, rejectPayoutApproval, requireNoApproval } from './approvals.js';
export { createBulkPayout } from './bulk.js';
export { BULK_PAYOUT_CSV_COLUMNS, batchReportToCsv, getBatchReport, getBulkPayout, listBulkPayouts } from './bulkReports.js';
export { PAYOUT_CSV_COLUMNS, createCustomerPayout, decidePayout, getCustomerPayout, listCustomerPayouts, payoutRequestOf, topupPayoutAccount } from './customerPayouts.js';
export { receivePayoutRailResult } from './railCallbacks.js';
export { searchBulkPayouts, searchPayouts } from './search.js';
export { getPayoutSummary } from './summary.js';
export { addWhitelistEntries, deleteWhitelistEntry, getWhitelistEnforcement, listWhitelistEntries, setWhitelistEnforcement } from './whitelist.js';
