/** Fixtures of the payout tests (core API), through the public API. */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { get, post, type ApiResponse } from './client.js';
import { activeCustomer, newMobileNumber, newNationalId, validInformation } from './customers.js';
import { newBusiness, type TestBusiness } from './fixtures.js';

/** Tops up the business's payout account (sandbox helper); asserts 201. */
export async function topupPayoutAccount(b: TestBusiness, amount: string): Promise<any> {
  const res = await post('/testhelpers/payout-account/topups', { amount }, { token: b.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body;
}

/** A new business with an ACTIVE customer and `amount` on its payout account. */
export async function payoutBusiness(amount = '1000.00'): Promise<{ b: TestBusiness; customer: any }> {
  const b = await newBusiness();
  const customer = await activeCustomer(b);
  await topupPayoutAccount(b, amount);
  return { b, customer };
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

/**
 * Onboards an ACTIVE customer of the business whose `token` it is through the service at
 * `baseUrl` (a sandbox instance, e.g. on a database of its own), as the README does.
 */
export async function onboardThrough(baseUrl: string, token: string): Promise<{ id: string; mobile: string; walletId: string }> {
  const mobile = newMobileNumber();
  const session = await post('/onboarding/sessions', { mobile_number: mobile, locale: 'en' }, { token, baseUrl });
  expect(session.status, JSON.stringify(session.body)).to.equal(201);
  const sms = await get(`/testhelpers/sms-messages?mobile_number=${mobile}&limit=1`, { token, baseUrl });
  const otp = /\d{6}/.exec(sms.body.data[0].text)![0];
  const id = session.body.session_id;
  expect((await post(`/onboarding/sessions/${id}/verify-otp`, { otp }, { token, baseUrl })).status).to.equal(200);
  const screened = await post(`/onboarding/sessions/${id}/identity-verification`, { national_id: newNationalId(), date_of_birth: '1990-04-15' }, { token, baseUrl });
  expect(screened.body.status, JSON.stringify(screened.body)).to.equal('SCREENING_PASSED');
  const customerId = session.body.customer_id;
  expect((await post('/onboarding/complete-customer-information', validInformation(customerId), { token, baseUrl })).status).to.equal(200);
  const customer = await get(`/customers/${customerId}`, { token, baseUrl });
  return { id: customerId, mobile, walletId: customer.body.wallet_id };
}
