/**
 * Tokenization activation code requests (sandbox test helpers): create one for an
 * ACTIVE card (the code goes to the customer), read it (seed E9), activate it with the code
 * (verifyOtp) or through the issuer's phone line (confirmIvr); every move of its state table
 * and every documented error; 404 outside the sandbox.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { RunningService } from '../../src/server.js';
import { expectProblem } from '../support/assertions.js';
import { changeStatus, issuedCard } from '../support/cards.js';
import { get, post } from '../support/client.js';
import { activeCustomer } from '../support/customers.js';
import { newBusiness, type TestBusiness } from '../support/fixtures.js';
import { advanceClock, latestOtp, otherCode, providerOutage } from '../support/sandbox.js';
import { extraServiceHooks } from '../support/service.js';

const BASE = '/testhelpers/tokenization/activation-code-requests';

describe('tokenization activation code requests', () => {
  let b: TestBusiness;
  let customer: any;
  let card: any;
  const create = (body: Record<string, unknown>, business = b, baseUrl?: string) => post(BASE, body, { token: business.token, baseUrl });
  const read = (id: string, business = b, baseUrl?: string) => get(`${BASE}/${id}`, { token: business.token, baseUrl });
  const verify = (id: string, otp: string, business = b, baseUrl?: string) => post(`${BASE}/${id}/verify-otp`, { otp }, { token: business.token, baseUrl });
  const ivr = (id: string, business = b, baseUrl?: string, result = 'CONFIRMED') => post(`${BASE}/${id}/confirm-ivr`, { result }, { token: business.token, baseUrl });
  /** A new request for `card` (asserts 201) and its code. */
  async function pending(business = b, c = card, holder = customer): Promise<{ request: any; code: string }> {
    const res = await create({ card_id: c.id, wallet: 'GOOGLE_PAY', device: 'Pixel 9' }, business);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return { request: res.body, code: await latestOtp(business, holder.mobile_number) };
  }

  before(async () => {
    b = await newBusiness();
    customer = await activeCustomer(b);
    card = (await issuedCard(b, {}, customer)).card;
  });

  it('create (the code is sent), E9 reads it, verifyOtp with the right code ACTIVATES it; then 409 for every further step', async () => {
    const { request, code } = await pending();
    expect(request).to.include({ token: card.token, status: 'PENDING_VERIFICATION', wallet: 'GOOGLE_PAY', device: 'Pixel 9', messageType: 'ACTIVATION_CODE_SMS', verificationResult: null, otpVerifiedAt: null });
    expect((await read(request.id)).body).to.deep.equal(request);
    const wrong = await verify(request.id, otherCode(code));
    expect(wrong.status, JSON.stringify(wrong.body)).to.equal(200);
    expect(wrong.body).to.include({ status: 'PENDING_VERIFICATION', verificationResult: 'INCORRECT_CODE' });
    const done = await verify(request.id, code);
    expect(done.body).to.include({ status: 'ACTIVATED', verificationResult: 'OTP_VERIFIED' });
    expect(done.body.otpVerifiedAt).to.be.a('string');
    expect((await read(request.id)).body).to.deep.equal(done.body);
    expectProblem(await verify(request.id, code), 409, 'ACTIVATION_CODE_REQUEST_STATUS_NOT_ALLOWED');
    expectProblem(await ivr(request.id), 409, 'ACTIVATION_CODE_REQUEST_STATUS_NOT_ALLOWED');
    expect((await read(request.id)).body).to.deep.equal(done.body);
  });

  it('confirmIvr ACTIVATES a pending request (its code stops working), or FAILS it when the customer rejects', async () => {
    const { request, code } = await pending();
    const res = await ivr(request.id);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ status: 'ACTIVATED', verificationResult: 'IVR_CONFIRMED', otpVerifiedAt: null });
    expect(res.body.ivrCompletedAt).to.be.a('string');
    expectProblem(await verify(request.id, code), 409, 'ACTIVATION_CODE_REQUEST_STATUS_NOT_ALLOWED');
    const refused = await pending();
    const rejected = await ivr(refused.request.id, b, undefined, 'REJECTED');
    expect(rejected.body).to.include({ status: 'FAILED', verificationResult: 'IVR_REJECTED' });
    expectProblem(await ivr(refused.request.id), 409, 'ACTIVATION_CODE_REQUEST_STATUS_NOT_ALLOWED');
  });

  it('the fifth wrong code FAILS the request; an expired code EXPIRES it; both are final', async () => {
    const { request, code } = await pending();
    for (let i = 0; i < 4; i++) expect((await verify(request.id, otherCode(code))).body.verificationResult).to.equal('INCORRECT_CODE');
    expect((await verify(request.id, otherCode(code))).body).to.include({ status: 'FAILED', verificationResult: 'ATTEMPTS_EXCEEDED' });
    expectProblem(await ivr(request.id), 409, 'ACTIVATION_CODE_REQUEST_STATUS_NOT_ALLOWED');
    const own = await newBusiness();
    const holder = await activeCustomer(own);
    const { card: c } = await issuedCard(own, {}, holder);
    const late = await pending(own, c, holder);
    await advanceClock(own, 601);
    expect((await verify(late.request.id, late.code, own)).body).to.include({ status: 'EXPIRED', verificationResult: 'CODE_EXPIRED' });
    expectProblem(await verify(late.request.id, late.code, own), 409, 'ACTIVATION_CODE_REQUEST_STATUS_NOT_ALLOWED');
  });

  it('create: 404 CARD_NOT_FOUND, 412 INVALID_CARD_STATUS for a card that is not ACTIVE, 503 when the SMS fails', async () => {
    expectProblem(await create({ card_id: randomUUID(), wallet: 'APPLE_PAY', device: 'iPhone' }), 404, 'CARD_NOT_FOUND');
    const { card: blocked } = await issuedCard(b, {}, customer);
    await changeStatus(b, blocked.id, 'TEMPORARILY_BLOCKED');
    expectProblem(await create({ card_id: blocked.id, wallet: 'APPLE_PAY', device: 'iPhone' }), 412, 'INVALID_CARD_STATUS');
    await providerOutage(b, 'SMS');
    expectProblem(await create({ card_id: card.id, wallet: 'APPLE_PAY', device: 'iPhone' }), 503, 'SERVICE_UNAVAILABLE');
  });

  it('404 ACTIVATION_CODE_REQUEST_NOT_FOUND for an unknown request and another business\'s', async () => {
    const { request, code } = await pending();
    const other = await newBusiness();
    expectProblem(await read(randomUUID()), 404, 'ACTIVATION_CODE_REQUEST_NOT_FOUND');
    expectProblem(await read(request.id, other), 404, 'ACTIVATION_CODE_REQUEST_NOT_FOUND');
    expectProblem(await verify(request.id, code, other), 404, 'ACTIVATION_CODE_REQUEST_NOT_FOUND');
    expectProblem(await ivr(request.id, other), 404, 'ACTIVATION_CODE_REQUEST_NOT_FOUND');
    expect((await read(request.id)).body.status).to.equal('PENDING_VERIFICATION');
  });

  describe('outside the sandbox (SANDBOX=false)', () => {
    let production: RunningService;
    extraServiceHooks({ sandbox: false }, (s) => (production = s));

    it('404 NOT_FOUND from every tokenization helper, and nothing changes', async () => {
      const { request, code } = await pending();
      expectProblem(await create({ card_id: card.id, wallet: 'APPLE_PAY', device: 'iPhone' }, b, production.url), 404, 'NOT_FOUND');
      expectProblem(await read(request.id, b, production.url), 404, 'NOT_FOUND');
      expectProblem(await verify(request.id, code, b, production.url), 404, 'NOT_FOUND');
      expectProblem(await ivr(request.id, b, production.url), 404, 'NOT_FOUND');
      expect((await read(request.id)).body.status).to.equal('PENDING_VERIFICATION');
    });
  });
});
