/**
 * Payout approvals (core tag Payout Approvals), from outside: a business's rules
 * (`payout_approval_threshold`, `bulk_payout_approval` on updateBusiness), the direct calls
 * they refuse, a request sent for approval, its maker refused, another key approving it (the
 * payout made once, with the money moved once), rejecting, a refused payout leaving the
 * request FAILED, a bulk payout, permissions, bad input changing nothing, and the audit log.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import { expectProblem, expectValidation } from '../support/assertions.js';
import { get, post, request, type ApiResponse } from '../support/client.js';
import { tokenFor, uniq, type TestBusiness } from '../support/fixtures.js';
import { payoutBusinessHooks, sendBulkPayout, sendPayout } from '../support/payouts.js';
import { enrolledUser, session, withSession } from '../support/portalUsers.js';
import { running } from '../support/service.js';

/** A new API key of `b` with `role`, and a token of it. */
async function keyToken(b: TestBusiness, role: string): Promise<{ clientId: string; token: string }> {
  const key = await post('/api-keys', { name: `Key ${uniq()}`, role }, { token: b.token });
  expect(key.status, JSON.stringify(key.body)).to.equal(201);
  return { clientId: key.body.client_id, token: await tokenFor(key.body.client_id, key.body.client_secret) };
}

const settings = (b: TestBusiness, body: Record<string, unknown>, token = b.token) => request('PATCH', `/cl/v1/businesses/${b.id}`, { token, body });
const ask = (token: string, body: unknown, idempotencyKey?: string) => post('/payout-approvals', body, { token, ...(idempotencyKey ? { idempotencyKey } : {}) });
const approve = (token: string, id: string, amount: string) => post(`/payout-approvals/${id}/approve`, { amount }, { token });
const reject = (token: string, id: string, reason: string) => post(`/payout-approvals/${id}/reject`, { reason }, { token });

/** The payout account's balance as getBusinessAccountBalance answers it. */
async function payoutBalance(b: TestBusiness): Promise<string> {
  const res = await get('/business-account/balance', { token: b.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.payout_account.balance;
}

/** Asks for approval of `body`; asserts 201 PENDING and returns the request. */
async function asked(token: string, body: unknown): Promise<any> {
  const res = await ask(token, body);
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  expect(res.body.status).to.equal('PENDING');
  return res.body;
}

describe('payout approvals: a second pair of eyes on payouts', function () {
  this.timeout(60_000);
  let b: TestBusiness;
  let customer: any;
  let approver: { clientId: string; token: string };
  let viewer: { clientId: string; token: string };
  let makerId: string;

  payoutBusinessHooks((made) => ({ b, customer } = made), '100000.00');

  before(async () => {
    approver = await keyToken(b, 'finance');
    viewer = await keyToken(b, 'viewer');
    makerId = (await get('/api-keys?limit=100', { token: b.token })).body.data.find((k: { role: string }) => k.role === 'owner').client_id;
  });

  it('with no rule (the default), a payout of any amount is made directly', async () => {
    const business = await get(`/cl/v1/businesses/${b.id}`, { token: b.token });
    expect(business.body).to.include({ payout_approval_threshold: null, bulk_payout_approval: false });
    const res = await sendPayout(b, { payout_amount: '5000.00', customer_id: customer.id });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });

  it('refuses bad settings and a change without business:manage, changing nothing', async () => {
    const before = (await get(`/cl/v1/businesses/${b.id}`, { token: b.token })).body;
    expectValidation(await settings(b, { payout_approval_threshold: '12,50' }), '/payout_approval_threshold');
    expectValidation(await settings(b, { bulk_payout_approval: 'yes' }), '/bulk_payout_approval');
    expectProblem(await settings(b, { payout_approval_threshold: '1.00' }, approver.token), 403, 'FORBIDDEN');
    expect((await get(`/cl/v1/businesses/${b.id}`, { token: b.token })).body).to.deep.equal(before);
  });

  it('from the threshold, a payout (exactly at it too) is refused 403 naming the approvals, and nothing moves; below it, it is made', async () => {
    const set = await settings(b, { payout_approval_threshold: '1000.00' });
    expect(set.body).to.include({ payout_approval_threshold: '1000.00', bulk_payout_approval: false });
    const balance = await payoutBalance(b);
    for (const amount of ['1000.00', '1000', '25000.50']) {
      const refused = await sendPayout(b, { payout_amount: amount, customer_id: customer.id });
      expectProblem(refused, 403, 'FORBIDDEN');
      expect(refused.body.detail).to.include('POST /payout-approvals');
    }
    expect(await payoutBalance(b)).to.equal(balance);
    const below = await sendPayout(b, { payout_amount: '999.99', customer_id: customer.id });
    expect(below.status, JSON.stringify(below.body)).to.equal(200);
  });

  it('records a request with its maker, replays it by key, and refuses another body under the key', async () => {
    const key = randomUUID();
    const body = { payout: { payout_amount: '1500', wallet_account_number: customer.wallet_account_number, external_reference: `ap-${uniq()}` } };
    const first = await ask(b.token, body, key);
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    expect(first.body).to.deep.include({
      status: 'PENDING',
      kind: 'PAYOUT',
      amount: '1500.00',
      currency: 'SAR',
      item_count: 1,
      created_by: { type: 'api_key', id: makerId },
      decided_by: null,
      payout_id: null,
      bulk_payout_id: null,
    });
    expect(first.body.payout).to.deep.equal(body.payout);
    const again = await ask(b.token, body, key);
    expect(again.status).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    expectProblem(await ask(b.token, { payout: { ...body.payout, payout_amount: '1600' } }, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect((await get(`/payout-approvals/${first.body.payout_approval_id}`, { token: viewer.token })).body).to.deep.equal(first.body);
  });

  it('the maker cannot approve; a viewer may read but neither ask nor approve; another key approves and the payout is made once', async () => {
    const request = await asked(b.token, { payout: { payout_amount: '2000.00', customer_id: customer.id } });
    const id = request.payout_approval_id;
    const balance = await payoutBalance(b);

    expectProblem(await approve(b.token, id, '2000.00'), 403, 'MAKER_CANNOT_APPROVE');
    expectProblem(await approve(viewer.token, id, '2000.00'), 403, 'FORBIDDEN');
    expectProblem(await ask(viewer.token, { payout: { payout_amount: '1.00', customer_id: customer.id } }), 403, 'FORBIDDEN');
    expectProblem(await approve(approver.token, id, '200.00'), 422, 'APPROVAL_AMOUNT_MISMATCH');
    expect((await get(`/payout-approvals/${id}`, { token: viewer.token })).body.status).to.equal('PENDING');
    expect(await payoutBalance(b)).to.equal(balance);

    const approved = await approve(approver.token, id, '2000');
    expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
    expect(approved.body).to.deep.include({ status: 'APPROVED', decided_by: { type: 'api_key', id: approver.clientId }, rejection_reason: null, failure_code: null });
    expect(approved.body.decided_at).to.be.a('string');
    const payout = await get(`/payouts/${approved.body.payout_id}`, { token: b.token });
    expect(payout.status).to.equal(200);
    expect(payout.body).to.include({ payout_amount: '2000.00', customer_id: customer.id });

    expectProblem(await approve(approver.token, id, '2000.00'), 409, 'PAYOUT_APPROVAL_STATUS_NOT_ALLOWED');
    expectProblem(await reject(approver.token, id, 'Too late'), 409, 'PAYOUT_APPROVAL_STATUS_NOT_ALLOWED');
    // The money moved once: the payout account is 2000.00 lower, however many approvals were sent.
    expect(new Decimal(balance).minus(await payoutBalance(b)).toFixed(2)).to.equal('2000.00');

    const audit = await get(`/audit-events?target_id=${id}&limit=100`, { token: b.token });
    const steps = audit.body.data.map((e: any) => `${e.operation_id} ${e.status} ${e.problem_code ?? ''}`.trim());
    expect(steps).to.include.members([
      'createPayoutApproval 201',
      'approvePayoutApproval 403 MAKER_CANNOT_APPROVE',
      'approvePayoutApproval 200',
      'approvePayoutApproval 409 PAYOUT_APPROVAL_STATUS_NOT_ALLOWED',
    ]);
    const approval = audit.body.data.find((e: any) => e.operation_id === 'approvePayoutApproval' && e.status === 200);
    expect(approval.actor).to.deep.equal({ type: 'api_key', id: approver.clientId });
    expect(approval.target_ids).to.include.members([id, approved.body.payout_id]);
  });

  it('rejects with a reason (the maker may withdraw too); a rejected request cannot be approved', async () => {
    const first = await asked(b.token, { payout: { payout_amount: '3000.00', mobile_number: customer.mobile_number } });
    expectValidation(await reject(approver.token, first.payout_approval_id, ''), '/reason');
    const rejected = await reject(approver.token, first.payout_approval_id, 'Invoice not due');
    expect(rejected.status, JSON.stringify(rejected.body)).to.equal(200);
    expect(rejected.body).to.deep.include({ status: 'REJECTED', rejection_reason: 'Invoice not due', decided_by: { type: 'api_key', id: approver.clientId }, payout_id: null });
    expectProblem(await approve(approver.token, first.payout_approval_id, '3000.00'), 409, 'PAYOUT_APPROVAL_STATUS_NOT_ALLOWED');
    const second = await asked(approver.token, { payout: { payout_amount: '3000.00', customer_id: customer.id } });
    const withdrawn = await reject(approver.token, second.payout_approval_id, 'Sent twice');
    expect(withdrawn.body).to.deep.include({ status: 'REJECTED', decided_by: { type: 'api_key', id: approver.clientId } });
    const audit = await get(`/audit-events?target_id=${first.payout_approval_id}&operation_id=rejectPayoutApproval&limit=100`, { token: b.token });
    expect(audit.body.data.map((e: any) => e.status)).to.include(200);
  });

  it('a portal user approving from PORTAL_REAUTHENTICATION_AMOUNT needs a recent code, as every movement of that size', async () => {
    const user = await enrolledUser({ token: b.token }, 'finance', b.token);
    const s = await session(user);
    await running().db('portal_sessions').where({ business_id: b.id, user_id: user.id }).update({ authenticated_at: running().db.raw("CURRENT_TIMESTAMP(3) - interval '11 minutes'") });
    const large = await asked(b.token, { payout: { payout_amount: '10000.00', customer_id: customer.id } });
    const refused = await withSession(s, 'POST', `/payout-approvals/${large.payout_approval_id}/approve`, { body: { amount: '10000.00' } });
    expectProblem(refused, 403, 'FORBIDDEN');
    expect(refused.body.detail).to.include('/portal-sessions/current/reauthentication');
    expect((await get(`/payout-approvals/${large.payout_approval_id}`, { token: b.token })).body.status).to.equal('PENDING');
    const again = await withSession(s, 'POST', '/portal-sessions/current/reauthentication', { body: { recovery_code: user.recoveryCodes[0] } });
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
    const approved = await withSession(s, 'POST', `/payout-approvals/${large.payout_approval_id}/approve`, { body: { amount: '10000.00' } });
    expect(approved.body).to.deep.include({ status: 'APPROVED', decided_by: { type: 'user', id: user.id } });
  });

  it('a payout refused on approval leaves the request FAILED with the refusal, and nothing moves', async () => {
    const balance = await payoutBalance(b);
    const request = await asked(b.token, { payout: { payout_amount: '900000.00', customer_id: customer.id } });
    const failed = await approve(approver.token, request.payout_approval_id, '900000.00');
    expect(failed.status, JSON.stringify(failed.body)).to.equal(200);
    expect(failed.body).to.include({ status: 'FAILED', failure_code: 'INSUFFICIENT_FUNDS', payout_id: null });
    expect(failed.body.failure_detail).to.be.a('string');
    expect(await payoutBalance(b)).to.equal(balance);
  });

  it('every bulk payout under the bulk rule (or with an item from the threshold) is refused; approved, it is made as createBulkPayout makes it', async () => {
    const items = [
      { payout_amount: '10.00', customer_id: customer.id, external_reference: `bulk-${uniq()}` },
      { payout_amount: '20.50', mobileNumber: customer.mobile_number },
      { payout_amount: 'ten', customer_id: customer.id },
    ];
    const overThreshold = await sendBulkPayout(b, [{ payout_amount: '1000.00', customer_id: customer.id }]);
    expectProblem(overThreshold, 403, 'FORBIDDEN');
    expect((await settings(b, { bulk_payout_approval: true })).body.bulk_payout_approval).to.equal(true);
    const refused = await sendBulkPayout(b, items);
    expectProblem(refused, 403, 'FORBIDDEN');
    expect(refused.body.detail).to.include('POST /payout-approvals');

    const request = await asked(b.token, { bulk_payout: { items } });
    expect(request).to.deep.include({ kind: 'BULK_PAYOUT', amount: '30.50', item_count: 3, payout: null });
    const approved = await approve(approver.token, request.payout_approval_id, '30.50');
    expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
    expect(approved.body.status).to.equal('APPROVED');
    const bulk = await get(`/bulk-payouts/${approved.body.bulk_payout_id}`, { token: b.token });
    expect(bulk.body.item_count).to.equal(3);
    expect(bulk.body.counts.REJECTED).to.equal(1);
  });

  it('lists the requests newest first, by status, page by page', async () => {
    const pending = await get('/payout-approvals?status=PENDING&limit=100', { token: viewer.token });
    expect(pending.status).to.equal(200);
    expect(pending.body.data.every((a: { status: string }) => a.status === 'PENDING')).to.equal(true);
    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const page: ApiResponse = await get(`/payout-approvals?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token: b.token });
      expect(page.status).to.equal(200);
      all.push(...page.body.data.map((a: { payout_approval_id: string }) => a.payout_approval_id));
      cursor = page.body.has_more ? page.body.next_cursor : null;
    } while (cursor);
    expect(all.length).to.be.greaterThan(4);
    expect(new Set(all).size).to.equal(all.length);
    expectProblem(await get('/payout-approvals?status=WAITING', { token: b.token }), 400, 'VALIDATION_ERROR');
  });

  it('refuses a request naming no receiver, two, a zero amount, both kinds or neither with 400, recording nothing; unknown ids are 404', async () => {
    const before = (await get('/payout-approvals?limit=100', { token: b.token })).body.data.length;
    expectValidation(await ask(b.token, { payout: { payout_amount: '5.00' } }), '/payout');
    expectValidation(await ask(b.token, { payout: { payout_amount: '5.00', customer_id: customer.id, mobile_number: customer.mobile_number } }), '/payout');
    expectValidation(await ask(b.token, { payout: { payout_amount: '0', customer_id: customer.id } }), '/payout/payout_amount');
    expectValidation(await ask(b.token, { payout: { payout_amount: '12,50', customer_id: customer.id } }), '/payout/payout_amount');
    expectProblem(await ask(b.token, { payout: { payout_amount: '5.00', customer_id: customer.id }, bulk_payout: { items: [{ payout_amount: '1.00' }] } }), 400, 'VALIDATION_ERROR');
    expectProblem(await ask(b.token, {}), 400, 'VALIDATION_ERROR');
    const huge = Array.from({ length: 2 }, () => ({ payout_amount: '999999999999999.99', customer_id: customer.id }));
    expectValidation(await ask(b.token, { bulk_payout: { items: huge } }), '/bulk_payout/items');
    expectValidation(await approve(approver.token, randomUUID(), 'lots'), '/amount');
    expect((await get('/payout-approvals?limit=100', { token: b.token })).body.data.length).to.equal(before);
    const unknown = randomUUID();
    expectProblem(await get(`/payout-approvals/${unknown}`, { token: b.token }), 404, 'PAYOUT_APPROVAL_NOT_FOUND');
    expectProblem(await approve(approver.token, unknown, '1.00'), 404, 'PAYOUT_APPROVAL_NOT_FOUND');
    expectProblem(await reject(approver.token, unknown, 'No'), 404, 'PAYOUT_APPROVAL_NOT_FOUND');
  });
});
