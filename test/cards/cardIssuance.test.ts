/**
 * Card issuance: issue card (idempotent by its `idempotency-key`), complete (the
 * 4-digit code is sent), E5 (the card is issued); every E5 error code of the seed's table
 * with the seed's status; every allowed and refused move of the issuance state table.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { expectProblem, expectValidation } from '../support/assertions.js';
import {
  completeIssuance,
  issueCard,
  issuedCard,
  pendingIssuance,
  verifyIssuance,
} from '../support/cards.js';
import { get, post, request } from '../support/client.js';
import { activeCustomer, startSession } from '../support/customers.js';
import { newBusiness, type TestBusiness } from '../support/fixtures.js';
import { changeNumber } from '../support/mobileChange.js';
import { advanceClock, latestOtp, otherCode, providerOutage } from '../support/sandbox.js';
import { running } from '../support/service.js';

describe('card issuance', () => {
  let b: TestBusiness;
  let customer: any;
  before(async () => {
    b = await newBusiness();
    customer = await activeCustomer(b);
  });

  it('issue → complete → E5: ISSUED with an ACTIVE virtual card on the customer\'s wallet', async () => {
    const key = randomUUID();
    const issued = await issueCard(b, { customer_id: customer.id }, key);
    expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
    expect(issued.body).to.include({
      status: 'PENDING_COMPLETION',
      customer_id: customer.id,
      account_id: customer.wallet_id,
      account_number: customer.wallet_account_number,
      idempotency_key: key,
      card_type: 'VIRTUAL',
      design: 'CLASSIC',
      card: null,
      otp_expires_at: null,
    });
    const completed = await completeIssuance(b, issued.body.id, { locale: 'en' });
    expect(completed.status).to.equal(200);
    expect(completed.body.status).to.equal('PENDING_OTP_VERIFICATION');
    expect(completed.body.otp_expires_at).to.be.a('string');
    const code = await latestOtp(b, customer.mobile_number, 4);
    const res = await verifyIssuance(b, issued.body.id, code);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ status: 'ISSUED', idempotency_key: key, otp_expires_at: null });
    const card = res.body.card;
    expect(card).to.include({ account_id: customer.wallet_id, status: 'ACTIVE', type: 'VIRTUAL', design: 'CLASSIC' });
    expect(card.token).to.be.a('number').and.to.be.greaterThan(1_000_000_000);
    expect(card.last_4_digits).to.match(/^[0-9]{4}$/);
    expect(card.expiry_date).to.match(/^20[0-9]{2}-[0-9]{2}-[0-9]{2}$/);
    expect(Number(card.expiry_date.slice(0, 4)) - new Date().getUTCFullYear()).to.equal(5);
    expect((await get(`/cards/${card.id}`, { token: b.token })).body).to.deep.equal(card);
    expect((await get(`/cards/issuances/${issued.body.id}`, { token: b.token })).body).to.deep.equal(res.body);
    const row = await running().db('cards').where({ id: card.id, business_id: b.id }).first();
    expect(row.pan_key_version).to.equal(1);
    expect(row.pan_sealed).to.not.match(/[0-9]{16}/);
  });

  it('a physical card is issued PENDING_ACTIVATION, with its design', async () => {
    const { card, issuance } = await issuedCard(b, { type: 'PHYSICAL', design: 'GOLD_2026' }, customer);
    expect(issuance.card_type).to.equal('PHYSICAL');
    expect(card).to.include({ type: 'PHYSICAL', status: 'PENDING_ACTIVATION', design: 'GOLD_2026' });
  });

  it('the idempotency-key: one issuance per key (200 for the same request, also at once), 422 for another request, 400 without it', async () => {
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 5 }, () => issueCard(b, { customer_id: customer.id, design: 'BLUE' }, key)));
    expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 200, 200, 200, 201]);
    expect(new Set(answers.map((a) => a.body.id)).size).to.equal(1);
    expect(await running().db('card_issuances').where({ business_id: b.id, idempotency_key: key }).count('* as n').first()).to.deep.equal({ n: '1' });
    const again = await issueCard(b, { customer_id: customer.id, design: 'BLUE' }, key);
    expect(again.status).to.equal(200);
    expect(again.body.id).to.equal(answers[0].body.id);
    expectProblem(await issueCard(b, { customer_id: customer.id, design: 'RED' }, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    expectProblem(await issueCard(b, { customer_id: customer.id, design: 'BLUE', type: 'PHYSICAL' }, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    expectValidation(await post('/cards/issuances', { customer_id: customer.id }, { token: b.token }), '/header/idempotency-key');
    // Keys are the business's: another business may use the same one.
    const other = await newBusiness();
    expectProblem(await issueCard(other, { customer_id: customer.id }, key), 404, 'CUSTOMER_NOT_FOUND');
  });

  it('refuses an unknown customer (404), one not ACTIVE (409) and a wallet not ACTIVE (422), writing nothing', async () => {
    expectProblem(await issueCard(b, { customer_id: randomUUID() }), 404, 'CUSTOMER_NOT_FOUND');
    const pending = await startSession(b);
    expectProblem(await issueCard(b, { customer_id: pending.customer_id }), 409, 'CUSTOMER_NOT_ACTIVE');
    const suspended = await activeCustomer(b);
    expect((await request('PATCH', `/cl/v1/wallets/${suspended.wallet_id}`, { token: b.token, body: { status: 'SUSPENDED' } })).status).to.equal(200);
    expectProblem(await issueCard(b, { customer_id: suspended.id }), 422, 'WALLET_NOT_ACTIVE');
    expect(await running().db('card_issuances').where({ business_id: b.id }).whereIn('customer_id', [pending.customer_id, suspended.id]).first()).to.equal(undefined);
  });

  describe('E5: every error code of the seed\'s table', () => {
    it('400 INVALID_OTP_FORMAT for anything but 4 digits, not counted', async () => {
      const { issuance, code } = await pendingIssuance(b, {}, customer);
      for (const otp of ['123', '12345', 'abcd', '12 4']) expectProblem(await verifyIssuance(b, issuance.id, otp), 400, 'INVALID_OTP_FORMAT');
      const row = await running().db('otp_operations').where({ id: (await running().db('card_issuances').where({ id: issuance.id, business_id: b.id }).first()).otp_operation_id, business_id: b.id }).first();
      expect(row.attempts).to.equal(0);
      expect((await verifyIssuance(b, issuance.id, code)).status).to.equal(200);
    });

    it('404 CARD_ISSUANCE_NOT_FOUND (also another business\'s) and 404 OTP_OPERATION_NOT_FOUND before any code was sent', async () => {
      expectProblem(await verifyIssuance(b, randomUUID(), '1234'), 404, 'CARD_ISSUANCE_NOT_FOUND');
      const { issuance } = await pendingIssuance(b, {}, customer);
      expectProblem(await verifyIssuance(await newBusiness(), issuance.id, '1234'), 404, 'CARD_ISSUANCE_NOT_FOUND');
      const fresh = await issueCard(b, { customer_id: customer.id });
      expectProblem(await verifyIssuance(b, fresh.body.id, '1234'), 404, 'OTP_OPERATION_NOT_FOUND');
      expect((await get(`/cards/issuances/${fresh.body.id}`, { token: b.token })).body.status).to.equal('PENDING_COMPLETION');
    });

    it('400 OTP_INCORRECT with attempts left, OTP_MAX_ATTEMPTS_REACHED on the fifth, 412 after it; a new code by completing again', async () => {
      const { issuance, code } = await pendingIssuance(b, {}, customer);
      for (let i = 0; i < 4; i++) expectProblem(await verifyIssuance(b, issuance.id, otherCode(code)), 400, 'OTP_INCORRECT');
      expectProblem(await verifyIssuance(b, issuance.id, otherCode(code)), 400, 'OTP_MAX_ATTEMPTS_REACHED');
      expectProblem(await verifyIssuance(b, issuance.id, code), 412, 'OTP_OPERATION_WRONG_STATUS');
      expect((await get(`/cards/issuances/${issuance.id}`, { token: b.token })).body.status).to.equal('PENDING_OTP_VERIFICATION');
      await advanceClock(b, 61);
      expect((await completeIssuance(b, issuance.id)).status).to.equal(200);
      const res = await verifyIssuance(b, issuance.id, await latestOtp(b, customer.mobile_number, 4));
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.status).to.equal('ISSUED');
    });

    it('400 OTP_EXPIRED after 5 minutes (business clock)', async () => {
      const own = await newBusiness();
      const { issuance, code } = await pendingIssuance(own);
      await advanceClock(own, 301);
      expectProblem(await verifyIssuance(own, issuance.id, code), 400, 'OTP_EXPIRED');
    });

    it('400 OTP_VERIFICATION_FAILED for a code sent to a number that is no longer the customer\'s; a new code goes to the new number', async () => {
      const own = await newBusiness();
      const { issuance, code, customer: holder } = await pendingIssuance(own);
      const newNumber = await changeNumber(own, holder.id);
      expectProblem(await verifyIssuance(own, issuance.id, code), 400, 'OTP_VERIFICATION_FAILED');
      expectProblem(await verifyIssuance(own, issuance.id, code), 412, 'OTP_OPERATION_WRONG_STATUS');
      await advanceClock(own, 61);
      expect((await completeIssuance(own, issuance.id)).status).to.equal(200);
      expect((await verifyIssuance(own, issuance.id, await latestOtp(own, newNumber, 4))).status).to.equal(200);
    });

    it('412 OTP_OPERATION_WRONG_STATUS once ISSUED; 409 CARD_STATUS_NOT_ALLOWED once EXPIRED; nothing changes', async () => {
      const { issuance, card } = await issuedCard(b, {}, customer);
      const code = await latestOtp(b, customer.mobile_number, 4);
      expectProblem(await verifyIssuance(b, issuance.id, code), 412, 'OTP_OPERATION_WRONG_STATUS');
      expect((await get(`/cards/issuances/${issuance.id}`, { token: b.token })).body.card).to.deep.equal(card);

      const own = await newBusiness();
      const pending = await pendingIssuance(own);
      await advanceClock(own, 24 * 3600);
      expectProblem(await verifyIssuance(own, pending.issuance.id, pending.code), 409, 'CARD_STATUS_NOT_ALLOWED');
      const after = (await get(`/cards/issuances/${pending.issuance.id}`, { token: own.token })).body;
      expect(after).to.include({ status: 'EXPIRED', card: null });
    });
  });

  describe('complete card issuance', () => {
    it('404 CARD_ISSUANCE_NOT_FOUND; 429 OTP_RESEND_TOO_SOON within 60 s; 422 OTP_RESEND_LIMIT_REACHED after 3 new codes', async () => {
      expectProblem(await completeIssuance(b, randomUUID()), 404, 'CARD_ISSUANCE_NOT_FOUND');
      expectProblem(await get(`/cards/issuances/${randomUUID()}`, { token: b.token }), 404, 'CARD_ISSUANCE_NOT_FOUND');
      const own = await newBusiness();
      const { issuance } = await pendingIssuance(own);
      const soon = await completeIssuance(own, issuance.id);
      expectProblem(soon, 429, 'OTP_RESEND_TOO_SOON');
      expect(Number(soon.headers.get('retry-after'))).to.be.within(1, 60);
      for (let i = 0; i < 3; i++) {
        await advanceClock(own, 61);
        expect((await completeIssuance(own, issuance.id)).status).to.equal(200);
      }
      await advanceClock(own, 61);
      expectProblem(await completeIssuance(own, issuance.id), 422, 'OTP_RESEND_LIMIT_REACHED');
    });

    it('503 SERVICE_UNAVAILABLE when the SMS provider is down, with nothing changed', async () => {
      const own = await newBusiness();
      const holder = await activeCustomer(own);
      const issued = await issueCard(own, { customer_id: holder.id });
      await providerOutage(own, 'SMS');
      expectProblem(await completeIssuance(own, issued.body.id), 503, 'SERVICE_UNAVAILABLE');
      expect((await get(`/cards/issuances/${issued.body.id}`, { token: own.token })).body.status).to.equal('PENDING_COMPLETION');
      expect((await completeIssuance(own, issued.body.id)).status).to.equal(200);
    });
  });

  describe('the issuance state table', () => {
    it('allows complete from PENDING_COMPLETION and PENDING_OTP_VERIFICATION; refuses it (409) from ISSUED and EXPIRED', async () => {
      const own = await newBusiness();
      const { issuance } = await issuedCard(own);
      expectProblem(await completeIssuance(own, issuance.id), 409, 'CARD_STATUS_NOT_ALLOWED');
      const waiting = await issueCard(own, { customer_id: issuance.customer_id });
      const pending = await pendingIssuance(own, {}, { id: issuance.customer_id, mobile_number: (await get(`/customers/${issuance.customer_id}`, { token: own.token })).body.mobile_number });
      await advanceClock(own, 24 * 3600);
      // Both live states expire.
      expect((await get(`/cards/issuances/${waiting.body.id}`, { token: own.token })).body.status).to.equal('EXPIRED');
      expectProblem(await completeIssuance(own, pending.issuance.id), 409, 'CARD_STATUS_NOT_ALLOWED');
      expect((await get(`/cards/issuances/${pending.issuance.id}`, { token: own.token })).body.status).to.equal('EXPIRED');
      expectProblem(await completeIssuance(own, waiting.body.id), 409, 'CARD_STATUS_NOT_ALLOWED');
    });
  });
});
