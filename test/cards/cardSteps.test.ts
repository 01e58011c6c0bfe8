/**
 * The OTP-guarded card steps: set or update the PIN, activate a physical card,
 * convert a virtual card to a physical one, replace a card. For each step, every error of
 * its step operation and of its "verify … OTP", with the documented status.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { expectProblem } from '../support/assertions.js';
import { type CardStep, changeStatus, issuedCard, startStep, stepSession, verifyStep } from '../support/cards.js';
import { get } from '../support/client.js';
import { activeCustomer } from '../support/customers.js';
import { newBusiness, type TestBusiness } from '../support/fixtures.js';
import { changeNumber } from '../support/mobileChange.js';
import { advanceClock, otherCode, providerOutage } from '../support/sandbox.js';

/** Each step: the card it is made on, its request, and a card state it is refused in. */
const STEPS: Record<CardStep, { type: 'VIRTUAL' | 'PHYSICAL'; body: Record<string, unknown>; refusedIn: string }> = {
  pin: { type: 'VIRTUAL', body: { pin: '2580' }, refusedIn: 'TEMPORARILY_BLOCKED' },
  activation: { type: 'PHYSICAL', body: {}, refusedIn: 'CLOSED' },
  conversion: { type: 'VIRTUAL', body: {}, refusedIn: 'TEMPORARILY_BLOCKED' },
  replacement: { type: 'VIRTUAL', body: { reason: 'DAMAGED' }, refusedIn: 'LOST' },
};

for (const [step, { type, body, refusedIn }] of Object.entries(STEPS) as [CardStep, (typeof STEPS)[CardStep]][]) {
  describe(`card step ${step}`, () => {
    let b: TestBusiness;
    let customer: any;
    before(async () => {
      b = await newBusiness();
      customer = await activeCustomer(b);
    });
    const freshCard = async (business = b, holder = customer) => (await issuedCard(business, { type }, holder)).card;

    it('the step: 404 CARD_NOT_FOUND (also another business\'s), 409 CARD_STATUS_NOT_ALLOWED, 503 when the SMS fails; nothing changes', async () => {
      const card = await freshCard();
      expectProblem(await startStep(b, randomUUID(), step, body), 404, 'CARD_NOT_FOUND');
      expectProblem(await startStep(await newBusiness(), card.id, step, body), 404, 'CARD_NOT_FOUND');
      const moved = await changeStatus(b, card.id, refusedIn);
      expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
      expectProblem(await startStep(b, card.id, step, body), 409, 'CARD_STATUS_NOT_ALLOWED');
      expect((await get(`/cards/${card.id}`, { token: b.token })).body).to.deep.equal(moved.body);
      const other = await freshCard();
      await providerOutage(b, 'SMS');
      expectProblem(await startStep(b, other.id, step, body), 503, 'SERVICE_UNAVAILABLE');
    });

    it('verify: 400 INVALID_OTP_FORMAT (not counted), 404 CARD_NOT_FOUND, 404 OTP_OPERATION_NOT_FOUND, then 200 and 412 OTP_OPERATION_WRONG_STATUS', async () => {
      const card = await freshCard();
      const { sessionId, code } = await stepSession(b, card, step, body, customer.mobile_number);
      expectProblem(await verifyStep(b, card.id, step, sessionId, '1234'), 400, 'INVALID_OTP_FORMAT');
      expectProblem(await verifyStep(b, randomUUID(), step, sessionId, code), 404, 'CARD_NOT_FOUND');
      expectProblem(await verifyStep(b, card.id, step, randomUUID(), code), 404, 'OTP_OPERATION_NOT_FOUND');
      const other = await freshCard();
      expectProblem(await verifyStep(b, other.id, step, sessionId, code), 404, 'OTP_OPERATION_NOT_FOUND');
      const done = await verifyStep(b, card.id, step, sessionId, code);
      expect(done.status, JSON.stringify(done.body)).to.equal(200);
      expectProblem(await verifyStep(b, card.id, step, sessionId, code), 412, 'OTP_OPERATION_WRONG_STATUS');
    });

    it('verify: 400 OTP_INCORRECT with attempts left, OTP_MAX_ATTEMPTS_REACHED on the fifth, 412 after it; nothing changes', async () => {
      const card = await freshCard();
      const { sessionId, code } = await stepSession(b, card, step, body, customer.mobile_number);
      for (let i = 0; i < 4; i++) expectProblem(await verifyStep(b, card.id, step, sessionId, otherCode(code)), 400, 'OTP_INCORRECT');
      expectProblem(await verifyStep(b, card.id, step, sessionId, otherCode(code)), 400, 'OTP_MAX_ATTEMPTS_REACHED');
      expectProblem(await verifyStep(b, card.id, step, sessionId, code), 412, 'OTP_OPERATION_WRONG_STATUS');
      expect((await get(`/cards/${card.id}`, { token: b.token })).body).to.deep.equal(card);
    });

    it('verify: 409 CARD_STATUS_NOT_ALLOWED when the card moved after the step (the code is not spent)', async () => {
      const card = await freshCard();
      const { sessionId, code } = await stepSession(b, card, step, body, customer.mobile_number);
      const moved = await changeStatus(b, card.id, refusedIn);
      expectProblem(await verifyStep(b, card.id, step, sessionId, code), 409, 'CARD_STATUS_NOT_ALLOWED');
      expect((await get(`/cards/${card.id}`, { token: b.token })).body).to.deep.equal(moved.body);
    });

    it('verify: 400 OTP_EXPIRED after 5 minutes; 400 OTP_VERIFICATION_FAILED for a code sent to a number that is no longer the customer\'s', async () => {
      const own = await newBusiness();
      const holder = await activeCustomer(own);
      const card = await freshCard(own, holder);
      const first = await stepSession(own, card, step, body, holder.mobile_number);
      await advanceClock(own, 301);
      expectProblem(await verifyStep(own, card.id, step, first.sessionId, first.code), 400, 'OTP_EXPIRED');
      const second = await stepSession(own, card, step, body, holder.mobile_number);
      await changeNumber(own, holder.id);
      expectProblem(await verifyStep(own, card.id, step, second.sessionId, second.code), 400, 'OTP_VERIFICATION_FAILED');
      expect((await get(`/cards/${card.id}`, { token: own.token })).body).to.deep.equal(card);
    });
  });
}
