/**
 * The last onboarding step (seed E8) and the customers it activates: the
 * rules, the wallet and the `onboarding.complete` event written together,
 * getCustomer and listCustomers, and the recorded-events helper.
 */
import { expect } from 'chai';
import type { RunningService } from '../../src/server.js';
import { expectProblem, expectValidation } from '../support/assertions.js';
import { get, post } from '../support/client.js';
import { activeCustomer, newMobileNumber, newNationalId, screenedSession, startSession, validInformation } from '../support/customers.js';
import { newBusiness, type TestBusiness } from '../support/fixtures.js';
import { providerOutage } from '../support/sandbox.js';
import { extraServiceHooks, running } from '../support/service.js';

const db = () => running().db;
const complete = (b: TestBusiness, body: Record<string, unknown>) => post('/onboarding/complete-customer-information', body, { token: b.token });

describe('completeCustomerInformation (E8)', () => {
  let b: TestBusiness;
  before(async () => {
    b = await newBusiness();
  });

  it('200 with exactly {customer_id}: the customer ACTIVE with a prefix-9 wallet at 0.00, the session COMPLETED, onboarding.complete recorded with the seed\'s data', async () => {
    const session = await screenedSession(b, newNationalId(), { external_reference: 'crm-42' });
    const res = await complete(b, { ...validInformation(session.customer_id), politically_exposed: true, pep_relation: 'MYSELF' });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ customer_id: session.customer_id });

    const customer = (await get(`/customers/${session.customer_id}`, { token: b.token })).body;
    expect(customer).to.include({
      status: 'ACTIVE',
      mobile_number: session.mobile_number,
      external_reference: 'crm-42',
      occupation_class: 'WORKER',
      occupation: 'ENGINEER',
      income_source: 'SALARY',
      politically_exposed: true,
      pep_relation: 'MYSELF',
      risk_rating: 'HIGH',
    });
    const wallet = (await get(`/cl/v1/wallets/${customer.wallet_id}`, { token: b.token })).body;
    expect(wallet).to.include({ business_id: b.id, status: 'ACTIVE', balance: '0.00', account_number: customer.wallet_account_number, name: customer.full_name });
    expect(wallet.account_number).to.match(/^9[0-9]{11}$/);
    expect((await get(`/onboarding/sessions/${session.session_id}`, { token: b.token })).body.status).to.equal('COMPLETED');

    const events = await db()('outbox_events').where({ business_id: b.id, code: 'onboarding.complete' });
    expect(events).to.have.length(1);
    expect(events[0].data).to.deep.equal({
      customer_id: session.customer_id,
      mobile_number: session.mobile_number,
      status: 'active',
      completed_at: customer.activated_at,
      external_reference: 'crm-42',
    });
  });

  it('records external_reference null when the business gave none; rates MEDIUM from 50000 a month', async () => {
    const session = await screenedSession(b);
    await complete(b, { ...validInformation(session.customer_id), monthly_income_range: 'RANGE_50000_AND_ABOVE' });
    const event = await db()('outbox_events').where({ business_id: b.id }).whereRaw("data->>'customer_id' = ?", [session.customer_id]).first();
    expect(event.data.external_reference).to.equal(null);
    expect((await get(`/customers/${session.customer_id}`, { token: b.token })).body.risk_rating).to.equal('MEDIUM');
  });

  it('accepts a class without work with no employer and no occupation, and a self-employed customer with business income', async () => {
    const student = await screenedSession(b);
    const info = { customer_id: student.customer_id, occupation_class: 'STUDENT', income_source: 'FAMILY_SUPPORT', monthly_income_range: 'RANGE_0_TO_4999', politically_exposed: false, pep_relation: null };
    expect((await complete(b, info)).status).to.equal(200);
    const owner = await screenedSession(b);
    const selfEmployed = { customer_id: owner.customer_id, occupation_class: 'BUSINESS_OWNER', occupation: 'MERCHANT', income_source: 'BUSINESS_INCOME', monthly_income_range: 'RANGE_20000_TO_49999', politically_exposed: false };
    expect((await complete(b, selfEmployed)).status).to.equal(200);
  });

  describe('400 VALIDATION_ERROR naming the field of each broken rule, all at once; nothing changes', () => {
    let customerId: string;
    before(async () => {
      customerId = (await screenedSession(b)).customer_id;
    });
    const cases: [string, Record<string, unknown>, string[]][] = [
      ['politically exposed without pep_relation', { politically_exposed: true }, ['/pep_relation']],
      ['pep_relation without being politically exposed', { pep_relation: 'FAMILY_MEMBER' }, ['/pep_relation']],
      ['an employed class without employer_name', { employer_name: undefined }, ['/employer_name']],
      ['a working class without occupation', { occupation_class: 'SELF_EMPLOYED', occupation: undefined, employer_name: undefined, income_source: 'BUSINESS_INCOME' }, ['/occupation']],
      ['a class without work with an employer and an occupation', { occupation_class: 'UNEMPLOYED', income_source: 'OTHER' }, ['/employer_name', '/occupation']],
      ['SALARY without an employed class', { occupation_class: 'SELF_EMPLOYED' }, ['/income_source']],
      ['BUSINESS_INCOME without a self-employed class', { income_source: 'BUSINESS_INCOME' }, ['/income_source']],
      ['an occupation class outside the enum', { occupation_class: 'ASTRONAUT' }, ['/occupation_class']],
      ['several rules at once', { politically_exposed: true, employer_name: undefined, income_source: 'BUSINESS_INCOME' }, ['/pep_relation', '/employer_name', '/income_source']],
    ];
    for (const [name, change, pointers] of cases) {
      it(name, async () => {
        const res = await complete(b, { ...validInformation(customerId), ...change });
        for (const pointer of pointers) expectValidation(res, pointer);
        expect(res.body.errors.map((e: { pointer: string }) => e.pointer).sort()).to.deep.equal([...pointers].sort());
        expect((await db()('customers').where({ id: customerId, business_id: b.id }).first()).status).to.equal('PENDING');
      });
    }
  });

  it('404 CUSTOMER_NOT_FOUND for an unknown customer and for another business\'s', async () => {
    const session = await screenedSession(b);
    expectProblem(await complete(await newBusiness(), validInformation(session.customer_id)), 404, 'CUSTOMER_NOT_FOUND');
    expectProblem(await complete(b, validInformation('00000000-0000-4000-8000-000000000000')), 404, 'CUSTOMER_NOT_FOUND');
    expect((await get(`/onboarding/sessions/${session.session_id}`, { token: b.token })).body.status).to.equal('SCREENING_PASSED');
  });

  it('409 NATIONAL_ID_TAKEN when another customer with the same national id completed first', async () => {
    const nationalId = newNationalId();
    const first = await screenedSession(b, nationalId);
    const second = await screenedSession(b, nationalId);
    expect((await complete(b, validInformation(first.customer_id))).status).to.equal(200);
    expectProblem(await complete(b, validInformation(second.customer_id)), 409, 'NATIONAL_ID_TAKEN');
    expect((await get(`/onboarding/sessions/${second.session_id}`, { token: b.token })).body.status).to.equal('SCREENING_PASSED');
  });

  it('503 SERVICE_UNAVAILABLE when the screening provider cannot rate the profile: no wallet, no event, nothing changed; the retry succeeds', async () => {
    const session = await screenedSession(b);
    const wallets = await db()('accounts').where({ business_id: b.id, kind: 'WALLET' }).count('* as n').first();
    await providerOutage(b, 'SCREENING', 1);
    const down = await complete(b, validInformation(session.customer_id));
    expectProblem(down, 503, 'SERVICE_UNAVAILABLE');
    expect(Number(down.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(await db()('accounts').where({ business_id: b.id, kind: 'WALLET' }).count('* as n').first()).to.deep.equal(wallets);
    expect((await db()('customers').where({ id: session.customer_id, business_id: b.id }).first()).status).to.equal('PENDING');
    expect(await db()('outbox_events').where({ business_id: b.id }).whereRaw("data->>'customer_id' = ?", [session.customer_id])).to.have.length(0);
    expect((await complete(b, validInformation(session.customer_id))).status).to.equal(200);
  });

  it('startOnboarding: 409 MOBILE_NUMBER_TAKEN for the number of an ACTIVE customer, with nothing created', async () => {
    const customer = await activeCustomer(b);
    const before = await db()('customers').where({ business_id: b.id }).count('* as n').first();
    expectProblem(await post('/onboarding/sessions', { mobile_number: customer.mobile_number }, { token: b.token }), 409, 'MOBILE_NUMBER_TAKEN');
    expect(await db()('customers').where({ business_id: b.id }).count('* as n').first()).to.deep.equal(before);
    expect((await post('/onboarding/sessions', { mobile_number: customer.mobile_number }, { token: (await newBusiness()).token })).status).to.equal(201);
  });
});

describe('customers: getCustomer and listCustomers', () => {
  let b: TestBusiness;
  let active: any;
  let pending: any;
  before(async () => {
    b = await newBusiness();
    active = await activeCustomer(b);
    pending = await startSession(b);
  });

  it('getCustomer: 200 with the KYC data, the wallet and no identity data beyond the verified name', async () => {
    const res = await get(`/customers/${active.id}`, { token: b.token });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ id: active.id, status: 'ACTIVE', risk_rating: 'LOW' });
    expect(res.body.full_name).to.match(/^Sandbox Customer \d{4}$/);
    expect(res.body).to.not.have.any.keys('national_id', 'national_id_hash', 'national_id_sealed', 'date_of_birth');
    const stillPending = (await get(`/customers/${pending.customer_id}`, { token: b.token })).body;
    expect(stillPending).to.include({ status: 'PENDING', wallet_id: null, wallet_account_number: null, full_name: null, activated_at: null });
  });

  it('getCustomer: 404 CUSTOMER_NOT_FOUND for another business\'s customer', async () => {
    expectProblem(await get(`/customers/${active.id}`, { token: (await newBusiness()).token }), 404, 'CUSTOMER_NOT_FOUND');
  });

  it('listCustomers: the business\'s customers only, newest first, by status and mobile number, paged', async () => {
    const all = await get('/customers', { token: b.token });
    expect(all.status).to.equal(200);
    expect(all.body.data.map((c: { id: string }) => c.id)).to.deep.equal([pending.customer_id, active.id]);
    expect((await get('/customers?status=ACTIVE', { token: b.token })).body.data.map((c: { id: string }) => c.id)).to.deep.equal([active.id]);
    expect((await get(`/customers?mobile_number=${pending.mobile_number}`, { token: b.token })).body.data).to.have.length(1);
    expect((await get(`/customers?mobile_number=${newMobileNumber()}`, { token: b.token })).body.data).to.have.length(0);
    const page = await get('/customers?limit=1', { token: b.token });
    expect(page.body.has_more).to.equal(true);
    const next = await get(`/customers?limit=1&cursor=${page.body.next_cursor}`, { token: b.token });
    expect(next.body.data[0].id).to.equal(active.id);
    expect(next.body.has_more).to.equal(false);
    expect((await get('/customers', { token: (await newBusiness()).token })).body.data).to.have.length(0);
  });
});

describe('listSandboxOutboxEvents', () => {
  it('lists the business\'s recorded events, newest first, by code', async () => {
    const b = await newBusiness();
    const customer = await activeCustomer(b, { external_reference: 'ext-9' });
    await post('/cl/v1/testhelpers/topups', { amount: '5.00' }, { token: b.token });
    const all = await get('/testhelpers/outbox-events', { token: b.token });
    expect(all.status).to.equal(200);
    expect(all.body.data.map((e: { code: string }) => e.code)).to.deep.equal(['topup.complete', 'onboarding.complete']);
    const onboarding = await get('/testhelpers/outbox-events?code=onboarding.complete', { token: b.token });
    expect(onboarding.body.data).to.have.length(1);
    expect(onboarding.body.data[0].data).to.deep.equal({
      customer_id: customer.id,
      mobile_number: customer.mobile_number,
      status: 'active',
      completed_at: customer.activated_at,
      external_reference: 'ext-9',
    });
    expect((await get('/testhelpers/outbox-events', { token: (await newBusiness()).token })).body.data).to.have.length(0);
  });

  describe('outside the sandbox', () => {
    let production: RunningService;
    extraServiceHooks({ sandbox: false }, (s) => (production = s));

    it('404 NOT_FOUND', async () => {
      const b = await newBusiness();
      expectProblem(await get('/testhelpers/outbox-events', { token: b.token, baseUrl: production.url }), 404, 'NOT_FOUND');
    });
  });
});
