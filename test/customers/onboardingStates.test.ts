/**
 * The onboarding state machine against its published table: a session in every
 * state, every step tried on it. A step the table does not allow answers 409
 * `ONBOARDING_STATE_<state>` (or, for a code whose OTP operation already completed
 * or failed, the OTP rule's 412, ended sessions included) and leaves the session,
 * its customer and its code as they were.
 */
import { expect } from 'chai';
import { ONBOARDING_STATES, onboardingMachine, type OnboardingEvent, type OnboardingState } from '../../src/customers/onboardingStates.js';
import { get, post, type ApiResponse } from '../support/client.js';
import { activeCustomer, initiateIdentity, screenedSession, startSession, validInformation, verifiedSession } from '../support/customers.js';
import { newBusiness, type TestBusiness } from '../support/fixtures.js';
import { advanceClock } from '../support/sandbox.js';
import { running } from '../support/service.js';

interface Placed {
  business: TestBusiness;
  session: { session_id: string; customer_id: string };
}

/** Puts a new session in `state` (EXPIRED in its own business, whose clock moves). */
async function sessionIn(state: OnboardingState, b: TestBusiness): Promise<Placed> {
  const placed = (session: Placed['session'], business = b) => ({ business, session });
  switch (state) {
    case 'PENDING_OTP_VERIFICATION':
      return placed(await startSession(b));
    case 'OTP_VERIFIED':
      return placed(await verifiedSession(b));
    case 'IDENTITY_VERIFICATION_IN_PROGRESS':
      return placed(await screenedSession(b, '1000000006'));
    case 'IDENTITY_VERIFIED':
      return placed(await screenedSession(b, '1000000007'));
    case 'SCREENING_PASSED':
      return placed(await screenedSession(b));
    case 'COMPLETED': {
      const customer = await activeCustomer(b);
      const session = await running().db('onboarding_sessions').where({ customer_id: customer.id }).first('id');
      return placed({ session_id: session.id, customer_id: customer.id });
    }
    case 'CANCELLED': {
      const session = await verifiedSession(b);
      await post(`/onboarding/sessions/${session.session_id}/cancel`, { reason: 'CUSTOMER_REQUEST' }, { token: b.token });
      return placed(session);
    }
    case 'EXPIRED': {
      const own = await newBusiness();
      const session = await startSession(own);
      await advanceClock(own, 24 * 3600);
      return placed(session, own);
    }
    case 'FAILED': {
      const session = await verifiedSession(b);
      await initiateIdentity(b, session.session_id, '1000000002');
      return placed(session);
    }
  }
}

/** The states `sessionIn` places before the session's code was verified (every other one, CANCELLED and COMPLETED included, is placed after). */
const CODE_PENDING: OnboardingState[] = ['PENDING_OTP_VERIFICATION', 'EXPIRED'];

/** Every step a client can ask for, with the event of the table it is. */
const STEPS: { name: string; event: OnboardingEvent; send: (p: Placed) => Promise<ApiResponse> }[] = [
  {
    name: 'verifyOnboardingOtp',
    event: 'VERIFY_OTP',
    send: ({ business, session }) => post(`/onboarding/sessions/${session.session_id}/verify-otp`, { otp: '000000' }, { token: business.token }),
  },
  {
    name: 'resendOnboardingOtp',
    event: 'RESEND_OTP',
    send: ({ business, session }) => post(`/onboarding/sessions/${session.session_id}/resend-otp`, {}, { token: business.token }),
  },
  {
    name: 'initiateIdentityVerification',
    event: 'INITIATE_IDENTITY_VERIFICATION',
    send: ({ business, session }) => initiateIdentity(business, session.session_id),
  },
  {
    name: 'completeCustomerInformation',
    event: 'COMPLETE_CUSTOMER_INFORMATION',
    send: ({ business, session }) => post('/onboarding/complete-customer-information', validInformation(session.customer_id), { token: business.token }),
  },
  {
    name: 'cancelOnboardingSession',
    event: 'CANCEL',
    send: ({ business, session }) => post(`/onboarding/sessions/${session.session_id}/cancel`, { reason: 'BUSINESS_DECISION' }, { token: business.token }),
  },
];

/** What the session, its customer and its code look like (to show a refusal changed nothing). */
async function snapshot({ business, session }: Placed): Promise<unknown> {
  const db = running().db;
  return {
    session: (await get(`/onboarding/sessions/${session.session_id}`, { token: business.token })).body,
    customer: await db('customers').where({ id: session.customer_id }).first(),
    otp: await db('otp_operations').join('onboarding_sessions as s', 's.otp_operation_id', 'otp_operations.id').where('s.id', session.session_id).first('otp_operations.*'),
    requests: await db('provider_requests').where({ subject_id: session.session_id }).count('* as n').first(),
  };
}

describe('onboarding state machine: every refused step, in every state', function () {
  this.timeout(120_000);
  let b: TestBusiness;
  const placed = new Map<OnboardingState, Placed>();

  before(async () => {
    b = await newBusiness();
    for (const state of ONBOARDING_STATES) placed.set(state, await sessionIn(state, b));
  });

  it('puts a session in every state of the table', async () => {
    for (const [state, p] of placed) {
      expect((await get(`/onboarding/sessions/${p.session.session_id}`, { token: p.business.token })).body.status, state).to.equal(state);
    }
  });

  for (const state of ONBOARDING_STATES) {
    it(`${state}: each step the table does not allow is refused and changes nothing`, async () => {
      const p = placed.get(state)!;
      for (const step of STEPS.filter((s) => !onboardingMachine.allows(state, s.event))) {
        const before = await snapshot(p);
        const res = await step.send(p);
        const expected = step.event === 'VERIFY_OTP' && !CODE_PENDING.includes(state) ? [412, 'OTP_OPERATION_WRONG_STATUS'] : [409, `ONBOARDING_STATE_${state}`];
        expect([res.status, res.body.code], `${step.name} in ${state}: ${JSON.stringify(res.body)}`).to.deep.equal(expected);
        expect(await snapshot(p), `${step.name} in ${state} changed something`).to.deep.equal(before);
      }
    });
  }
});
