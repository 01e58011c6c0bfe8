/**
 * What the OTP-guarded card steps do: each step allowed or refused in each card
 * state as the published table says; the PIN shown by E6 once set; activation; conversion
 * keeps the card; replacement for each reason (new or kept PAN, the old card's fate, the
 * links between both cards).
 */
import { expect } from 'chai';
import { expectProblem } from '../support/assertions.js';
import { changeStatus, completedStep, issuedCard, revealed, startStep, type CardStep } from '../support/cards.js';
import { get } from '../support/client.js';
import { activeCustomer } from '../support/customers.js';
import { newBusiness, type TestBusiness } from '../support/fixtures.js';

type Status = 'PENDING_ACTIVATION' | 'ACTIVE' | 'TEMPORARILY_BLOCKED' | 'LOST' | 'STOLEN' | 'CLOSED';
type Step = 'pin' | 'activation' | 'conversion' | 'DAMAGED' | 'EXPIRED' | 'LOST' | 'STOLEN';

/** The steps each state allows, as the card state table of the document publishes them (virtual cards but PENDING_ACTIVATION). */
const ALLOWED: Record<Status, readonly Step[]> = {
  PENDING_ACTIVATION: ['pin', 'activation', 'LOST', 'STOLEN'],
  ACTIVE: ['pin', 'conversion', 'DAMAGED', 'EXPIRED', 'LOST', 'STOLEN'],
  TEMPORARILY_BLOCKED: ['DAMAGED', 'EXPIRED', 'LOST', 'STOLEN'],
  LOST: ['LOST'],
  STOLEN: ['STOLEN'],
  CLOSED: [],
};
const STEPS: readonly Step[] = ['pin', 'activation', 'conversion', 'DAMAGED', 'EXPIRED', 'LOST', 'STOLEN'];

const request = (step: Step): [CardStep, Record<string, unknown>] =>
  step === 'pin' ? ['pin', { pin: '1234' }] : step === 'activation' || step === 'conversion' ? [step, {}] : ['replacement', { reason: step }];

describe('card steps: effects', () => {
  let b: TestBusiness;
  let customer: any;
  before(async () => {
    b = await newBusiness();
    customer = await activeCustomer(b);
  });
  const cardOf = async (type: 'VIRTUAL' | 'PHYSICAL') => (await issuedCard(b, { type }, customer)).card;
  const card = async (id: string) => (await get(`/cards/${id}`, { token: b.token })).body;
  const step = (c: any, s: Step) => completedStep(b, c, ...request(s), customer.mobile_number);

  it('every step in every card state: allowed ones send a code, refused ones are 409 CARD_STATUS_NOT_ALLOWED and change nothing', async function () {
    this.timeout(120_000);
    for (const status of Object.keys(ALLOWED) as Status[]) {
      let c = await cardOf(status === 'PENDING_ACTIVATION' ? 'PHYSICAL' : 'VIRTUAL');
      if (c.status !== status) c = (await changeStatus(b, c.id, status)).body;
      for (const s of STEPS) {
        const res = await startStep(b, c.id, ...request(s));
        if (ALLOWED[status].includes(s)) expect(res.status, `${status}: ${s}: ${JSON.stringify(res.body)}`).to.equal(200);
        else expectProblem(res, 409, 'CARD_STATUS_NOT_ALLOWED');
      }
      expect(await card(c.id), status).to.deep.equal(c);
    }
  });

  it('set PIN: E6 shows it once its code is verified, and the new one after an update; before activation too', async () => {
    const c = await cardOf('VIRTUAL');
    expect((await revealed(b, c, customer)).pin).to.equal(null);
    await completedStep(b, c, 'pin', { pin: '4821' }, customer.mobile_number);
    expect((await revealed(b, c, customer)).pin).to.equal('4821');
    const updated = await completedStep(b, c, 'pin', { pin: '0937' }, customer.mobile_number);
    expect(updated).to.not.have.property('pin');
    expect((await revealed(b, c, customer)).pin).to.equal('0937');
    const plastic = await cardOf('PHYSICAL');
    await completedStep(b, plastic, 'pin', { pin: '5500' }, customer.mobile_number);
    expect((await step(plastic, 'activation')).status).to.equal('ACTIVE');
    expect((await revealed(b, plastic, customer)).pin).to.equal('5500');
  });

  it('conversion keeps the card (id, token, PAN, PIN), makes it PHYSICAL and PENDING_ACTIVATION; activation makes it ACTIVE', async () => {
    const c = await cardOf('VIRTUAL');
    await completedStep(b, c, 'pin', { pin: '7788' }, customer.mobile_number);
    const before = await revealed(b, c, customer);
    const converted = await step(c, 'conversion');
    expect(converted).to.include({ id: c.id, token: c.token, type: 'PHYSICAL', status: 'PENDING_ACTIVATION', last_4_digits: c.last_4_digits });
    expectProblem(await startStep(b, c.id, 'conversion'), 409, 'CARD_STATUS_NOT_ALLOWED');
    expect((await step(c, 'activation')).status).to.equal('ACTIVE');
    expect(await revealed(b, c, customer)).to.deep.equal(before);
  });

  for (const reason of ['LOST', 'STOLEN'] as const) {
    it(`replacement as ${reason}: a new PAN, the old card ${reason} at once, linked both ways, replaced once`, async () => {
      const c = await cardOf('VIRTUAL');
      await completedStep(b, c, 'pin', { pin: '2468' }, customer.mobile_number);
      const old = await revealed(b, c, customer);
      const fresh = await step(c, reason);
      expect(fresh).to.include({ type: 'VIRTUAL', status: 'ACTIVE', replaces_card_id: c.id, replaced_by_card_id: null, design: c.design });
      expect(fresh.id).to.not.equal(c.id);
      expect(await card(c.id)).to.include({ status: reason, replaced_by_card_id: fresh.id });
      const data = await revealed(b, fresh, customer);
      expect(data.pan).to.not.equal(old.pan);
      expect(data.pin).to.equal('2468');
      expectProblem(await startStep(b, c.id, 'replacement', { reason }), 409, 'CARD_STATUS_NOT_ALLOWED');
    });
  }

  it(`replacement of a card reported ${'LOST'} already, and of a physical card not yet activated`, async () => {
    const c = await cardOf('VIRTUAL');
    await changeStatus(b, c.id, 'LOST');
    expect((await step(c, 'LOST')).replaces_card_id).to.equal(c.id);
    const plastic = await cardOf('PHYSICAL');
    const fresh = await step(plastic, 'STOLEN');
    expect(fresh).to.include({ type: 'PHYSICAL', status: 'PENDING_ACTIVATION' });
    expect((await card(plastic.id)).status).to.equal('STOLEN');
  });

  it('replacement of a damaged physical card: the same PAN, the old card works until the new one is ACTIVE, then it is CLOSED', async () => {
    const plastic = await cardOf('PHYSICAL');
    await step(plastic, 'activation');
    const old = await revealed(b, plastic, customer);
    const fresh = await step(plastic, 'DAMAGED');
    expect(fresh).to.include({ type: 'PHYSICAL', status: 'PENDING_ACTIVATION', replaces_card_id: plastic.id, last_4_digits: plastic.last_4_digits });
    expect(await card(plastic.id)).to.include({ status: 'ACTIVE', replaced_by_card_id: fresh.id });
    expect((await revealed(b, plastic, customer)).pan).to.equal(old.pan);
    expect((await step(fresh, 'activation')).status).to.equal('ACTIVE');
    expect((await card(plastic.id)).status).to.equal('CLOSED');
    expect((await revealed(b, fresh, customer)).pan).to.equal(old.pan);
  });

  it('replacement of an expired virtual card: the same PAN, the new card ACTIVE and the old one CLOSED at once', async () => {
    const c = await cardOf('VIRTUAL');
    const old = await revealed(b, c, customer);
    const fresh = await step(c, 'EXPIRED');
    expect(fresh).to.include({ type: 'VIRTUAL', status: 'ACTIVE', replaces_card_id: c.id });
    expect(await card(c.id)).to.include({ status: 'CLOSED', replaced_by_card_id: fresh.id });
    expect((await revealed(b, fresh, customer)).pan).to.equal(old.pan);
    const again = await step(fresh, 'DAMAGED');
    expect((await revealed(b, again, customer)).pan).to.equal(old.pan);
  });
});
