/**
 * Payouts to customers (core API) through the public API: a business ready to pay out
 * (and the hooks of a suite on one), createPayout and createBulkPayout requests, waiting
 * for a payout's or a batch's outcome, the events recorded about a payout, and a batch's
 * counts checked against its report.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { get, post, type ApiResponse } from './client.js';
import { activeCustomer } from './customers.js';
import { newBusiness, type TestBusiness } from './fixtures.js';
import { assertLedgerConsistent } from './ledgerInvariants.js';
import { running } from './service.js';

/** Tops up the business's payout account (sandbox helper); asserts 201. */
export async function topupPayoutAccount(b: TestBusiness, amount: string): Promise<any> {
  const res = await post('/testhelpers/payout-account/topups', { amount }, { token: b.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body;
}

/** A business ready to pay out: `b`, one ACTIVE customer of it (as getCustomer answers it). */
export interface PayoutBusiness {
  b: TestBusiness;
  customer: any;
}

/** A new business with an ACTIVE customer and `amount` on its payout account. */
export async function payoutBusiness(amount = '1000.00'): Promise<PayoutBusiness> {
  const b = await newBusiness();
  const customer = await activeCustomer(b);
  await topupPayoutAccount(b, amount);
  return { b, customer };
}

/**
 * Registers the hooks of a suite whose tests share one payout business: in `before`, a
 * payoutBusiness(`amount`) handed to `keep` (which stores it in the suite's variables);
 * in `after`, every ledger invariant over that business (assertLedgerConsistent).
 */
export function payoutBusinessHooks(keep: (made: PayoutBusiness) => void, amount?: string): void {
  let made: PayoutBusiness | undefined;
  before(async () => {
    made = await payoutBusiness(amount);
    keep(made);
  });
  after(async () => {
    if (made) await assertLedgerConsistent(running().db, made.b.id);
  });
}

/** Sends E4 with `body` under `key` (a fresh one by default); the response is not asserted. */
export function sendPayout(b: TestBusiness, body: Record<string, unknown>, key: string | null = randomUUID()): Promise<ApiResponse> {
  return post('/payouts/', body, { token: b.token, ...(key === null ? {} : { headers: { 'idempotency-key': key } }) });
}

/** Creates a payout; asserts 200 PENDING and returns the answer. */
export async function createPayout(b: TestBusiness, body: Record<string, unknown>): Promise<any> {
  const res = await sendPayout(b, body);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.body.status).to.equal('PENDING');
  return res.body;
}

/** The payout as getPayoutStatus answers it; asserts 200. */
export async function payoutOf(b: TestBusiness, id: string): Promise<any> {
  const res = await get(`/payouts/${id}`, { token: b.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** Waits (up to `ms`) until the payout is in `status`; returns it. */
export async function payoutReaching(b: TestBusiness, id: string, status: string, ms = 15_000): Promise<any> {
  const deadline = Date.now() + ms;
  for (;;) {
    const payout = await payoutOf(b, id);
    if (payout.status === status || Date.now() > deadline) {
      expect(payout.status, JSON.stringify(payout)).to.equal(status);
      return payout;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The codes of the business's recorded events about payout `id`, oldest first. */
export async function payoutEventCodes(b: TestBusiness, id: string): Promise<string[]> {
  const res = await get('/testhelpers/outbox-events?limit=100', { token: b.token });
  expect(res.status).to.equal(200);
  return (res.body.data as { code: string; data: { payout_id?: string } }[])
    .filter((e) => e.data.payout_id === id)
    .map((e) => e.code)
    .reverse();
}

/** Sends createBulkPayout with `items` under `key` (a fresh one by default); the response is not asserted. */
export function sendBulkPayout(b: TestBusiness, items: Record<string, unknown>[], key: string | null = randomUUID()): Promise<ApiResponse> {
  return post('/bulk-payouts', { items }, { token: b.token, ...(key === null ? {} : { headers: { 'idempotency-key': key } }) });
}

/**
 * Checks that the counts per state `counts` (getBulkPayoutStatus's answer for batch `id`) are
 * those of its report's rows (getBatchReport: each item's payout's own state), which the
 * service reads from the payouts themselves while the counts are kept on the batch's row.
 */
export async function expectCountsOfReport(b: TestBusiness, id: string, counts: Record<string, number>): Promise<void> {
  const report = await get(`/bulk-payouts/${id}/report`, { token: b.token });
  expect(report.status, JSON.stringify(report.body)).to.equal(200);
  const tally: Record<string, number> = { PENDING: 0, PROCESSING: 0, COMPLETED: 0, FAILED: 0, REJECTED: 0 };
  for (const row of report.body.data) tally[row.status]++;
  expect(counts, `counts of bulk payout ${id} against its report`).to.deep.equal(tally);
}

/**
 * Waits (up to `ms`) until no item of the batch is PENDING or PROCESSING; checks the counts
 * against the report (expectCountsOfReport) and returns getBulkPayoutStatus's answer.
 */
export async function bulkPayoutSettled(b: TestBusiness, id: string, ms = 20_000): Promise<any> {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await get(`/bulk-payouts/${id}`, { token: b.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const { PENDING, PROCESSING } = res.body.counts;
    if (PENDING + PROCESSING === 0 || Date.now() > deadline) {
      expect(PENDING + PROCESSING, JSON.stringify(res.body)).to.equal(0);
      await expectCountsOfReport(b, id, res.body.counts);
      return res.body;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
