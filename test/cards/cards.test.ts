/**
 * Card management: get card, every allowed and refused move of the card state
 * table, and the display of sensitive data with E6: every E6 error code of the seed's
 * table with the seed's status, and the 5-attempt lock, also under parallel guesses.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { isValidPan } from '../../src/cards/data.js';
import { expectProblem } from '../support/assertions.js';
import { changeStatus, displaySession, issuedCard, revealed, startDisplay, verifyDisplay } from '../support/cards.js';
import { get } from '../support/client.js';
import { activeCustomer } from '../support/customers.js';
import { newBusiness, type TestBusiness } from '../support/fixtures.js';
import { changeNumber } from '../support/mobileChange.js';
import { advanceClock, latestOtp, otherCode, providerOutage } from '../support/sandbox.js';
import { running } from '../support/service.js';

type Status = 'PENDING_ACTIVATION' | 'ACTIVE' | 'TEMPORARILY_BLOCKED' | 'LOST' | 'STOLEN' | 'CLOSED';
const TARGETS = ['ACTIVE', 'TEMPORARILY_BLOCKED', 'LOST', 'STOLEN', 'CLOSED'] as const;

/** The card state table as the document publishes it: the statuses `changeCardStatus` may move each state to. */
const ALLOWED: Record<Status, readonly string[]> = {
  PENDING_ACTIVATION: ['LOST', 'STOLEN', 'CLOSED'],
  ACTIVE: ['TEMPORARILY_BLOCKED', 'LOST', 'STOLEN', 'CLOSED'],
  TEMPORARILY_BLOCKED: ['ACTIVE', 'LOST', 'STOLEN', 'CLOSED'],
  LOST: [],
  STOLEN: [],
  CLOSED: [],
};

describe('cards', () => {
  let b: TestBusiness;
  let customer: any;
  before(async () => {
    b = await newBusiness();
    customer = await activeCustomer(b);
  });

  /** A fresh card of `customer` in `status`. */
  async function cardIn(status: Status): Promise<any> {
    const { card } = await issuedCard(b, status === 'PENDING_ACTIVATION' ? { type: 'PHYSICAL' } : {}, customer);
    if (status === 'ACTIVE' || status === 'PENDING_ACTIVATION') return card;
    const res = await changeStatus(b, card.id, status);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  }

  it('get card: 404 CARD_NOT_FOUND for an unknown card and another business\'s', async () => {
    const card = await cardIn('ACTIVE');
    expect((await get(`/cards/${card.id}`, { token: b.token })).body.id).to.equal(card.id);
    expectProblem(await get(`/cards/${randomUUID()}`, { token: b.token }), 404, 'CARD_NOT_FOUND');
    expectProblem(await get(`/cards/${card.id}`, { token: (await newBusiness()).token }), 404, 'CARD_NOT_FOUND');
    expectProblem(await changeStatus(b, randomUUID(), 'CLOSED'), 404, 'CARD_NOT_FOUND');
  });

  it('every move of the card state table: allowed ones move, refused ones are 409 CARD_STATUS_NOT_ALLOWED and change nothing', async function () {
    this.timeout(120_000);
    for (const from of Object.keys(ALLOWED) as Status[]) {
      let unchanged = await cardIn(from);
      for (const to of TARGETS) {
        if (to === from) {
          const same = await changeStatus(b, unchanged.id, to);
          expect(same.status, `${from} → ${to}`).to.equal(200);
          expect(same.body).to.deep.equal(unchanged);
        } else if (ALLOWED[from].includes(to)) {
          const card = await cardIn(from);
          const res = await changeStatus(b, card.id, to);
          expect(res.status, `${from} → ${to}: ${JSON.stringify(res.body)}`).to.equal(200);
          expect(res.body.status).to.equal(to);
        } else {
          expectProblem(await changeStatus(b, unchanged.id, to), 409, 'CARD_STATUS_NOT_ALLOWED');
          const after = (await get(`/cards/${unchanged.id}`, { token: b.token })).body;
          expect(after, `${from} → ${to} changed the card`).to.deep.equal(unchanged);
          unchanged = after;
        }
      }
    }
  });

  it('a temporary block can be undone, any number of times', async () => {
    const card = await cardIn('ACTIVE');
    for (let i = 0; i < 2; i++) {
      expect((await changeStatus(b, card.id, 'TEMPORARILY_BLOCKED')).body.status).to.equal('TEMPORARILY_BLOCKED');
      expect((await changeStatus(b, card.id, 'ACTIVE')).body.status).to.equal('ACTIVE');
    }
  });

  describe('display sensitive data and E6', () => {
    it('shows the PAN, CVV, expiry and PIN (null when unset) of an ACTIVE card, with Cache-Control: no-store', async () => {
      const card = await cardIn('ACTIVE');
      const { sessionId, code } = await displaySession(b, card, customer);
      const res = await verifyDisplay(b, { session_id: sessionId, otp: code, card_id: card.id });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(res.body.pan).to.match(/^999001[0-9]{10}$/);
      expect(isValidPan(res.body.pan)).to.equal(true);
      expect(res.body.pan.slice(-4)).to.equal(card.last_4_digits);
      expect(res.body.cvv).to.match(/^[0-9]{3}$/);
      expect(res.body.expiry).to.equal(`${card.expiry_date.slice(5, 7)}/${card.expiry_date.slice(2, 4)}`);
      expect(res.body.pin).to.equal(null);
      // Another display shows the same data.
      expect(await revealed(b, card, customer)).to.deep.equal(res.body);
    });

    it('display: 404 CARD_NOT_FOUND, 412 INVALID_CARD_STATUS for a card that is not ACTIVE, 503 when the SMS provider is down', async () => {
      expectProblem(await startDisplay(b, randomUUID()), 404, 'CARD_NOT_FOUND');
      for (const status of ['TEMPORARILY_BLOCKED', 'PENDING_ACTIVATION', 'LOST'] as const) {
        expectProblem(await startDisplay(b, (await cardIn(status)).id), 412, 'INVALID_CARD_STATUS');
      }
      const card = await cardIn('ACTIVE');
      await providerOutage(b, 'SMS');
      expectProblem(await startDisplay(b, card.id), 503, 'SERVICE_UNAVAILABLE');
      expect(await running().db('card_otp_sessions').where({ card_id: card.id, business_id: b.id }).first()).to.equal(undefined);
    });

    it('E6 400 INVALID_OTP_FORMAT (not 4 to 8 digits, not counted), 404 OTP_OPERATION_NOT_FOUND, 404 CARD_NOT_FOUND', async () => {
      const card = await cardIn('ACTIVE');
      const other = await cardIn('ACTIVE');
      const { sessionId, code } = await displaySession(b, card, customer);
      for (const otp of ['123', '123456789', 'abcdef', '12 45']) expectProblem(await verifyDisplay(b, { session_id: sessionId, otp }), 400, 'INVALID_OTP_FORMAT');
      expectProblem(await verifyDisplay(b, { session_id: randomUUID(), otp: code }), 404, 'OTP_OPERATION_NOT_FOUND');
      expectProblem(await verifyDisplay(await newBusiness(), { session_id: sessionId, otp: code }), 404, 'OTP_OPERATION_NOT_FOUND');
      expectProblem(await verifyDisplay(b, { session_id: sessionId, otp: code, card_id: other.id }), 404, 'CARD_NOT_FOUND');
      expect((await verifyDisplay(b, { session_id: sessionId, otp: code })).status, 'nothing was counted').to.equal(200);
    });

    it('E6 412 INVALID_CARD_STATUS when the card stopped being ACTIVE; 412 OTP_OPERATION_WRONG_STATUS for a verified session', async () => {
      const card = await cardIn('ACTIVE');
      const blocked = await displaySession(b, card, customer);
      await changeStatus(b, card.id, 'TEMPORARILY_BLOCKED');
      expectProblem(await verifyDisplay(b, { session_id: blocked.sessionId, otp: blocked.code }), 412, 'INVALID_CARD_STATUS');
      await changeStatus(b, card.id, 'ACTIVE');
      expect((await verifyDisplay(b, { session_id: blocked.sessionId, otp: blocked.code })).status).to.equal(200);
      expectProblem(await verifyDisplay(b, { session_id: blocked.sessionId, otp: blocked.code }), 412, 'OTP_OPERATION_WRONG_STATUS');
    });

    it('E6 400 OTP_INVALID, then OTP_MAX_ATTEMPTS_REACHED on the fifth invalid attempt, and 412 after it, even for the right code', async () => {
      const card = await cardIn('ACTIVE');
      const { sessionId, code } = await displaySession(b, card, customer);
      for (let i = 0; i < 4; i++) expectProblem(await verifyDisplay(b, { session_id: sessionId, otp: otherCode(code) }), 400, 'OTP_INVALID');
      expectProblem(await verifyDisplay(b, { session_id: sessionId, otp: '0000' }), 400, 'OTP_MAX_ATTEMPTS_REACHED');
      expectProblem(await verifyDisplay(b, { session_id: sessionId, otp: code }), 412, 'OTP_OPERATION_WRONG_STATUS');
    });

    it('E6 holds the 5-attempt lock under parallel guesses: 4 OTP_INVALID, one OTP_MAX_ATTEMPTS_REACHED, the rest 412, no data', async () => {
      const card = await cardIn('ACTIVE');
      const { sessionId, code } = await displaySession(b, card, customer);
      const answers = await Promise.all(Array.from({ length: 25 }, () => verifyDisplay(b, { session_id: sessionId, otp: otherCode(code) })));
      expect(answers.filter((a) => a.body.code === 'OTP_INVALID')).to.have.length(4);
      expect(answers.filter((a) => a.body.code === 'OTP_MAX_ATTEMPTS_REACHED')).to.have.length(1);
      expect(answers.filter((a) => a.body.code === 'OTP_OPERATION_WRONG_STATUS')).to.have.length(20);
      expectProblem(await verifyDisplay(b, { session_id: sessionId, otp: code }), 412, 'OTP_OPERATION_WRONG_STATUS');
      const session = await running().db('card_otp_sessions').where({ id: sessionId, business_id: b.id }).first();
      expect((await running().db('otp_operations').where({ id: session.otp_operation_id, business_id: b.id }).first()).attempts).to.equal(5);
    });

    it('E6 400 OTP_EXPIRED after 5 minutes (business clock)', async () => {
      const own = await newBusiness();
      const { card, customer: holder } = await issuedCard(own);
      const { sessionId, code } = await displaySession(own, card, holder);
      await advanceClock(own, 301);
      expectProblem(await verifyDisplay(own, { session_id: sessionId, otp: code }), 400, 'OTP_EXPIRED');
    });

    it('E6 400 OTP_VERIFICATION_FAILED for a code sent to a number that is no longer the customer\'s; the session then fails (412)', async () => {
      const own = await newBusiness();
      const { card, customer: holder } = await issuedCard(own);
      const { sessionId, code } = await displaySession(own, card, holder);
      const newNumber = await changeNumber(own, holder.id);
      expectProblem(await verifyDisplay(own, { session_id: sessionId, otp: code }), 400, 'OTP_VERIFICATION_FAILED');
      expectProblem(await verifyDisplay(own, { session_id: sessionId, otp: code }), 412, 'OTP_OPERATION_WRONG_STATUS');
      expect(await revealed(own, card, { ...holder, mobile_number: newNumber })).to.have.property('pan');
      expect(await latestOtp(own, newNumber)).to.match(/^[0-9]{6}$/);
    });
  });
});
