/**
 * Cards through the public API: issuance (issue, complete, verify the 4-digit OTP),
 * status changes, the display of a card's data (E6, 6-digit OTP) and the OTP-guarded
 * card steps (PIN, activation, conversion, replacement). Helpers named for a request
 * return the response unasserted; the others assert each step's success.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { post, request } from './client.js';
import { activeCustomer } from './customers.js';
import type { TestBusiness } from './fixtures.js';
import { latestOtp } from './sandbox.js';

/** Issue card for a customer with a fresh idempotency-key (or `key`); returns the response (not asserted). */
export const issueCard = (b: TestBusiness, body: Record<string, unknown>, key: string = randomUUID()) =>
  post('/cards/issuances', body, { token: b.token, idempotencyKey: key });

/** Completes an issuance (the code is sent); returns the response (not asserted). */
export const completeIssuance = (b: TestBusiness, id: string, body: Record<string, unknown> = {}) =>
  post(`/cards/issuances/${id}/complete`, body, { token: b.token });

/** Verifies an issuance's OTP (E5); returns the response (not asserted). */
export const verifyIssuance = (b: TestBusiness, id: string, otp: string) => post(`/cards/issuances/${id}/verify-otp`, { otp }, { token: b.token });

/** Changes a card's status; returns the response (not asserted). */
export const changeStatus = (b: TestBusiness, cardId: string, status: string) => request('PATCH', `/cards/${cardId}`, { token: b.token, body: { status } });

/** Starts a display of a card's data; returns the response (not asserted). */
export const startDisplay = (b: TestBusiness, cardId: string) => post(`/cards/${cardId}/sensitive-data/display`, {}, { token: b.token });

/** Verifies a display session's OTP (E6), which answers the card's data; returns the response (not asserted). */
export const verifyDisplay = (b: TestBusiness, body: Record<string, unknown>) => post('/cards/sensitive-data/verify-otp', body, { token: b.token });

/** An issuance waiting for its code (PENDING_OTP_VERIFICATION) for `customer` (a fresh ACTIVE one by default), and that code. */
export async function pendingIssuance(b: TestBusiness, body: Record<string, unknown> = {}, customer?: any): Promise<{ customer: any; issuance: any; code: string }> {
  customer ??= await activeCustomer(b);
  const issued = await issueCard(b, { customer_id: customer.id, ...body });
  expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
  const completed = await completeIssuance(b, issued.body.id);
  expect(completed.status, JSON.stringify(completed.body)).to.equal(200);
  return { customer, issuance: completed.body, code: await latestOtp(b, customer.mobile_number, 4) };
}

/** A card issued to the end (E5 passed) for `customer` (a fresh ACTIVE one by default). */
export async function issuedCard(b: TestBusiness, body: Record<string, unknown> = {}, customer?: any): Promise<{ customer: any; issuance: any; card: any }> {
  const pending = await pendingIssuance(b, body, customer);
  const res = await verifyIssuance(b, pending.issuance.id, pending.code);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return { customer: pending.customer, issuance: res.body, card: res.body.card };
}

/** A display session of `card` and its code. */
export async function displaySession(b: TestBusiness, card: any, customer: any): Promise<{ sessionId: string; code: string }> {
  const res = await startDisplay(b, card.id);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return { sessionId: res.body.session_id, code: await latestOtp(b, customer.mobile_number) };
}

/** The card's data through E6 (asserts 200). */
export async function revealed(b: TestBusiness, card: any, customer: any): Promise<{ pan: string; cvv: string; expiry: string; pin: string | null }> {
  const { sessionId, code } = await displaySession(b, card, customer);
  const res = await verifyDisplay(b, { session_id: sessionId, otp: code });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** The path segment of each OTP-guarded card step (setCardPin, activateCard, convertCardToPhysical, replaceCard). */
export type CardStep = 'pin' | 'activation' | 'conversion' | 'replacement';

/** Starts card step `step` on card `cardId`; returns the response (not asserted). */
export const startStep = (b: TestBusiness, cardId: string, step: CardStep, body: Record<string, unknown> = {}) =>
  post(`/cards/${cardId}/${step}/sessions`, body, { token: b.token });

/** The "verify … OTP" of a card step; returns the response (not asserted). */
export const verifyStep = (b: TestBusiness, cardId: string, step: CardStep, sessionId: string, otp: string) =>
  post(`/cards/${cardId}/${step}/sessions/${sessionId}/verify-otp`, { otp }, { token: b.token });

/** Starts card step `step` on `card` (asserts 200); its session id and the 6-digit code sent to `mobileNumber`. */
export async function stepSession(b: TestBusiness, card: any, step: CardStep, body: Record<string, unknown>, mobileNumber: string): Promise<{ sessionId: string; code: string }> {
  const res = await startStep(b, card.id, step, body);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return { sessionId: res.body.session_id, code: await latestOtp(b, mobileNumber) };
}

/** Card step `step` on `card` to the end (asserts 200); the card answered. */
export async function completedStep(b: TestBusiness, card: any, step: CardStep, body: Record<string, unknown>, mobileNumber: string): Promise<any> {
  const { sessionId, code } = await stepSession(b, card, step, body, mobileNumber);
  const res = await verifyStep(b, card.id, step, sessionId, code);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}
