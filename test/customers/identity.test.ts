/**
 * The identity step of onboarding: initiateIdentityVerification, the sandbox
 * identity and screening providers, and the two signed callbacks (signature,
 * timestamp, replay, unknown reference, results nothing waits for).
 */
import { expect } from 'chai';
import { expectProblem, expectValidation } from '../support/assertions.js';
import { newEventId, providerReference, sendCallback } from '../support/callbacks.js';
import { get, post } from '../support/client.js';
import {
  activeCustomer,
  initiateIdentity,
  newNationalId,
  screenedSession,
  verifiedSession,
} from '../support/customers.js';
import { newBusiness, type TestBusiness } from '../support/fixtures.js';
import { signatureHeaders } from '../support/operations.js';
import { captureLogs } from '../support/logs.js';
import { advanceClock, providerOutage } from '../support/sandbox.js';
import { running } from '../support/service.js';

const db = () => running().db;
const session = (b: TestBusiness, id: string) => get(`/onboarding/sessions/${id}`, { token: b.token }).then((r) => r.body);
const identityResult = (reference: string, extra: Record<string, unknown> = {}) => ({
  event_id: newEventId(),
  reference,
  outcome: 'APPROVED',
  full_name: 'Callback Customer',
  rejection_reason: null,
  occurred_at: new Date().toISOString(),
  ...extra,
});
const screeningResult = (reference: string, extra: Record<string, unknown> = {}) => ({
  event_id: newEventId(),
  reference,
  outcome: 'CLEAR',
  match_types: [],
  occurred_at: new Date().toISOString(),
  ...extra,
});

describe('onboarding: initiateIdentityVerification (sandbox providers)', () => {
  let b: TestBusiness;
  before(async () => {
    b = await newBusiness();
  });

  it('200: the sandbox approves and screens clear through the signed callbacks; the answer shows SCREENING_PASSED', async () => {
    const verified = await verifiedSession(b);
    const res = await initiateIdentity(b, verified.session_id, '1234567890');
    expect(res.status).to.equal(200);
    expect(res.body.status).to.equal('SCREENING_PASSED');
    const customer = await db()('customers').where({ id: verified.customer_id }).first();
    expect(customer.full_name).to.equal('Sandbox Customer 7890');
    expect(customer.national_id_sealed).to.match(/^national-id\./).and.not.include('1234567890');
    expect(customer.national_id_key_version).to.equal(1);
    expect(customer.national_id_hash).to.match(/^[0-9a-f]{64}$/);
    const requests = await db()('provider_requests').where({ subject_id: verified.session_id }).orderBy('created_at');
    expect(requests.map((r) => [r.kind, r.status, r.outcome])).to.deep.equal([
      ['IDENTITY', 'COMPLETED', 'APPROVED'],
      ['SCREENING', 'COMPLETED', 'CLEAR'],
    ]);
    expect(await db()('provider_callback_events').where({ business_id: b.id })).to.have.length(2);
  });

  it('test id 1000000002: identity rejected → FAILED (IDENTITY_REJECTED), the customer INACTIVE', async () => {
    const verified = await verifiedSession(b);
    const res = await initiateIdentity(b, verified.session_id, '1000000002');
    expect(res.body).to.include({ status: 'FAILED', status_reason: 'IDENTITY_REJECTED' });
    expect((await db()('customers').where({ id: verified.customer_id }).first()).status).to.equal('INACTIVE');
  });

  it('test id 1000000004: approved, screening matches → FAILED (SCREENING_MATCH)', async () => {
    const res = await screenedSession(b, '1000000004');
    expect(res).to.include({ status: 'FAILED', status_reason: 'SCREENING_MATCH' });
  });

  it('test ids 1000000006 and 1000000007: no identity result (IN_PROGRESS), no screening result (IDENTITY_VERIFIED)', async () => {
    expect((await screenedSession(b, '1000000006')).status).to.equal('IDENTITY_VERIFICATION_IN_PROGRESS');
    expect((await screenedSession(b, '1000000007')).status).to.equal('IDENTITY_VERIFIED');
  });

  it('503 SERVICE_UNAVAILABLE for test id 1000000003 and during an outage, with nothing changed; the same request then succeeds', async () => {
    const verified = await verifiedSession(b);
    expectProblem(await initiateIdentity(b, verified.session_id, '1000000003'), 503, 'SERVICE_UNAVAILABLE');
    await providerOutage(b, 'IDENTITY_VERIFICATION', 1);
    const nationalId = newNationalId();
    expectProblem(await initiateIdentity(b, verified.session_id, nationalId), 503, 'SERVICE_UNAVAILABLE');
    expect((await session(b, verified.session_id)).status).to.equal('OTP_VERIFIED');
    expect((await db()('customers').where({ id: verified.customer_id }).first()).national_id_hash).to.equal(null);
    expect(await db()('provider_requests').where({ subject_id: verified.session_id })).to.have.length(0);
    expect((await initiateIdentity(b, verified.session_id, nationalId)).body.status).to.equal('SCREENING_PASSED');
  });

  it('400 VALIDATION_ERROR naming national_id (not 10 digits from 1 or 2) and date_of_birth (not before today)', async () => {
    const verified = await verifiedSession(b);
    expectValidation(await initiateIdentity(b, verified.session_id, '3234567890'), '/national_id');
    expectValidation(await initiateIdentity(b, verified.session_id, newNationalId(), new Date().toISOString().slice(0, 10)), '/date_of_birth');
    expect((await session(b, verified.session_id)).status).to.equal('OTP_VERIFIED');
  });

  it('409 NATIONAL_ID_TAKEN when an ACTIVE customer of the business has the national id; another business may use it', async () => {
    const nationalId = newNationalId();
    await activeCustomer(b, {}, nationalId);
    const verified = await verifiedSession(b);
    expectProblem(await initiateIdentity(b, verified.session_id, nationalId), 409, 'NATIONAL_ID_TAKEN');
    expect((await session(b, verified.session_id)).status).to.equal('OTP_VERIFIED');
    expect((await screenedSession(await newBusiness(), nationalId)).status).to.equal('SCREENING_PASSED');
  });

  it('404 ONBOARDING_SESSION_NOT_FOUND for another business\'s session', async () => {
    const verified = await verifiedSession(b);
    expectProblem(await initiateIdentity(await newBusiness(), verified.session_id), 404, 'ONBOARDING_SESSION_NOT_FOUND');
  });

  it('a provider outage on screening leaves the identity callback unapplied (503 to the provider); the retry applies it', async () => {
    const verified = await verifiedSession(b);
    await initiateIdentity(b, verified.session_id, '1000000006');
    const reference = await providerReference(verified.session_id, 'IDENTITY');
    const result = identityResult(reference);
    await providerOutage(b, 'SCREENING', 1);
    expectProblem(await sendCallback('/callbacks/identity-verification', result), 503, 'SERVICE_UNAVAILABLE');
    expect((await session(b, verified.session_id)).status).to.equal('IDENTITY_VERIFICATION_IN_PROGRESS');
    const retry = await sendCallback('/callbacks/identity-verification', result);
    expect(retry.status).to.equal(200);
    expect(retry.body).to.deep.equal({ event_id: result.event_id, result: 'APPLIED' });
    expect((await session(b, verified.session_id)).status).to.equal('SCREENING_PASSED');
    expect((await db()('customers').where({ id: verified.customer_id }).first()).full_name).to.equal('Callback Customer');
  });
});

describe('provider callbacks: signatures, replays and references', () => {
  let b: TestBusiness;
  let waiting: any;
  let reference: string;
  before(async () => {
    b = await newBusiness();
    waiting = await verifiedSession(b);
    await initiateIdentity(b, waiting.session_id, '1000000006');
    reference = await providerReference(waiting.session_id, 'IDENTITY');
  });

  it('401 INVALID_SIGNATURE for no signature, a malformed one, a wrong secret and a body changed after signing; nothing changes', async () => {
    const body = identityResult(reference);
    for (const signature of ['', 'v1=abc', 't=1795255200', `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`]) {
      const res = await sendCallback('/callbacks/identity-verification', body, { signature });
      expectProblem(res, 401, 'INVALID_SIGNATURE');
      expect(res.headers.get('www-authenticate')).to.match(/^Signature realm="provider-callbacks"/);
    }
    const screening = screeningResult(reference);
    const withIdentitySecret = signatureHeaders({ signedBy: 'IDENTITY_VERIFICATION' }, screening)['X-Provider-Signature'];
    expectProblem(await sendCallback('/callbacks/screening', screening, { signature: withIdentitySecret }), 401, 'INVALID_SIGNATURE');
    const signedBody = signatureHeaders({ signedBy: 'IDENTITY_VERIFICATION' }, body)['X-Provider-Signature'];
    const changed = { ...body, full_name: 'Someone Else' };
    expectProblem(await sendCallback('/callbacks/identity-verification', changed, { signature: signedBody }), 401, 'INVALID_SIGNATURE');
    expect((await session(b, waiting.session_id)).status).to.equal('IDENTITY_VERIFICATION_IN_PROGRESS');
    expect(await db()('provider_callback_events').where({ business_id: b.id })).to.have.length(0);
  });

  it('401 SIGNATURE_EXPIRED for a timestamp older (or further ahead) than 5 minutes, even correctly signed', async () => {
    const now = Math.floor(Date.now() / 1000);
    expectProblem(await sendCallback('/callbacks/identity-verification', identityResult(reference), { timestamp: now - 301 }), 401, 'SIGNATURE_EXPIRED');
    expectProblem(await sendCallback('/callbacks/identity-verification', identityResult(reference), { timestamp: now + 301 }), 401, 'SIGNATURE_EXPIRED');
    expectProblem(await sendCallback('/callbacks/screening', screeningResult(reference), { timestamp: now - 600 }), 401, 'SIGNATURE_EXPIRED');
    expect((await session(b, waiting.session_id)).status).to.equal('IDENTITY_VERIFICATION_IN_PROGRESS');
  });

  it('400 VALIDATION_ERROR naming full_name for an approval without the verified name', async () => {
    expectValidation(await sendCallback('/callbacks/identity-verification', identityResult(reference, { full_name: null })), '/full_name');
  });

  it('404 CALLBACK_REFERENCE_NOT_FOUND for an unknown reference, or a reference of another kind of request', async () => {
    expectProblem(await sendCallback('/callbacks/identity-verification', identityResult('00000000-0000-4000-8000-000000000000')), 404, 'CALLBACK_REFERENCE_NOT_FOUND');
    expectProblem(await sendCallback('/callbacks/screening', screeningResult(reference)), 404, 'CALLBACK_REFERENCE_NOT_FOUND');
  });

  it('200 APPLIED, then 409 CALLBACK_REPLAYED for the same event id (nothing changes); a second result is IGNORED', async () => {
    const rejected = identityResult(reference, { outcome: 'REJECTED', full_name: null, rejection_reason: 'DOCUMENT_INVALID' });
    const first = await sendCallback('/callbacks/identity-verification', rejected);
    expect(first.body).to.deep.equal({ event_id: rejected.event_id, result: 'APPLIED' });
    expect(await session(b, waiting.session_id)).to.include({ status: 'FAILED', status_reason: 'IDENTITY_REJECTED' });
    expectProblem(await sendCallback('/callbacks/identity-verification', rejected), 409, 'CALLBACK_REPLAYED');
    const second = await sendCallback('/callbacks/identity-verification', identityResult(reference));
    expect(second.body.result).to.equal('IGNORED');
    expect((await session(b, waiting.session_id)).status).to.equal('FAILED');
  });

  it('parallel deliveries of one event apply it once', async () => {
    const other = await verifiedSession(b);
    await initiateIdentity(b, other.session_id, '1000000007');
    const screening = screeningResult(await providerReference(other.session_id, 'SCREENING'));
    const results = await Promise.all(Array.from({ length: 5 }, () => sendCallback('/callbacks/screening', screening)));
    expect(results.map((r) => r.status).sort()).to.deep.equal([200, 409, 409, 409, 409]);
    expect((await session(b, other.session_id)).status).to.equal('SCREENING_PASSED');
  });

  it('screening: MATCH → FAILED (SCREENING_MATCH); a result for an expired session is IGNORED and the session EXPIRED', async () => {
    const match = await verifiedSession(b);
    await initiateIdentity(b, match.session_id, '1000000007');
    const res = await sendCallback('/callbacks/screening', screeningResult(await providerReference(match.session_id, 'SCREENING'), { outcome: 'MATCH', match_types: ['SANCTIONS'] }));
    expect(res.body.result).to.equal('APPLIED');
    expect(await session(b, match.session_id)).to.include({ status: 'FAILED', status_reason: 'SCREENING_MATCH' });

    const late = await newBusiness();
    const expiring = await verifiedSession(late);
    await initiateIdentity(late, expiring.session_id, '1000000006');
    await advanceClock(late, 24 * 3600);
    const ignored = await sendCallback('/callbacks/identity-verification', identityResult(await providerReference(expiring.session_id, 'IDENTITY')));
    expect(ignored.body.result).to.equal('IGNORED');
    expect((await db()('onboarding_sessions').where({ id: expiring.session_id }).first()).status).to.equal('EXPIRED');
  });

  it('a cancelled session ignores its result', async () => {
    const other = await verifiedSession(b);
    await initiateIdentity(b, other.session_id, '1000000006');
    const ref = await providerReference(other.session_id, 'IDENTITY');
    await post(`/onboarding/sessions/${other.session_id}/cancel`, { reason: 'CUSTOMER_REQUEST' }, { token: b.token });
    expect((await sendCallback('/callbacks/identity-verification', identityResult(ref))).body.result).to.equal('IGNORED');
  });
});

describe('identity data stays out of logs and answers', () => {
  it('the national id and date of birth appear in no log line and no response, failures included', async () => {
    const bodies: string[] = [];
    const nationalId = newNationalId();
    const lines = await captureLogs(async () => {
      const b = await newBusiness();
      const verified = await verifiedSession(b);
      await providerOutage(b, 'IDENTITY_VERIFICATION', 1);
      bodies.push(JSON.stringify((await initiateIdentity(b, verified.session_id, nationalId, '1987-06-05')).body));
      await providerOutage(b, 'SCREENING', 1);
      bodies.push(JSON.stringify((await initiateIdentity(b, verified.session_id, nationalId, '1987-06-05')).body));
      bodies.push(JSON.stringify((await get(`/customers/${verified.customer_id}`, { token: b.token })).body));
      bodies.push(JSON.stringify((await get('/customers', { token: b.token })).body));
    });
    expect(lines.some((l) => l.includes('provider IDENTITY_VERIFICATION unavailable')), 'the outage was logged').to.equal(true);
    expect(lines.some((l) => l.includes('sandbox callback /callbacks/identity-verification answered 503')), 'the failed delivery was logged').to.equal(true);
    for (const text of [...bodies, ...lines]) expect(text).not.to.include(nationalId).and.not.to.include('1987-06-05');
  });
});
